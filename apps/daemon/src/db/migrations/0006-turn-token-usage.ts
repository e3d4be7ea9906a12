import type { Kysely } from "kysely";

/**
 * A turn's tokens as the runtime reported them in its result event (issue 28): read uncached
 * (`input_tokens`), written to the prompt cache (`cache_creation_input_tokens`), read from it
 * (`cache_read_input_tokens`), and `output_tokens`; and the session's input so far including
 * this turn (`session_input_tokens`, all three kinds, `session_cache_read_tokens`), so a turn
 * shows its session's cache reuse without summing the session's earlier turns. Nullable:
 * existing turns recorded none, and a session's totals start with its first turn after this.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .addColumn("input_tokens", "integer")
    .addColumn("cache_creation_input_tokens", "integer")
    .addColumn("cache_read_input_tokens", "integer")
    .addColumn("output_tokens", "integer")
    .addColumn("session_input_tokens", "bigint")
    .addColumn("session_cache_read_tokens", "bigint")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .dropColumn("input_tokens")
    .dropColumn("cache_creation_input_tokens")
    .dropColumn("cache_read_input_tokens")
    .dropColumn("output_tokens")
    .dropColumn("session_input_tokens")
    .dropColumn("session_cache_read_tokens")
    .execute();
}
