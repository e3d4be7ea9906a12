import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * A turn's tokens as the CLI reported them in its result event (issue 28): `input_tokens`
 * read uncached, `cache_creation_input_tokens` written to the prompt cache,
 * `cache_read_input_tokens` read from it, `output_tokens`; and the session's input so far
 * including this turn (`session_input_tokens`, all three kinds, and `session_cache_read_tokens`),
 * from which the turn shows the session's cache reuse without summing its earlier turns.
 *
 * Existing turns: nothing recorded their tokens; every column stays null (shown as unknown), and
 * a session's running totals start with its first turn after this migration.
 */
async function up(db: Kysely<unknown>): Promise<void> {
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

async function down(db: Kysely<unknown>): Promise<void> {
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

export const turnTokenUsage: Migration = { up, down };
