import type { Kysely } from "kysely";
import { sql } from "kysely";

/**
 * What the model gateway (issue 51) knows of a turn beside its four token columns: where the
 * turn's figures come from (`usage_source`: `gateway`, the provider's own usage of the turn's
 * requests; `cli`, the CLI's report, for a turn none of whose requests went through the
 * gateway), how many requests it forwarded, the cache writes split by lifetime (5 minutes and
 * 1 hour; their sum is `cache_creation_input_tokens`), why the turn's first request missed the
 * prompt cache (`cache_miss`, the gateway's explanation) and the daemon's words for it
 * (`cache_miss_phrase`), and the limit a request of the turn was refused over (`usage_limit`).
 * Nullable: every turn before this migration recorded none of it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .addColumn("usage_source", "text", (column) =>
      column.check(sql`usage_source IN ('gateway', 'cli')`),
    )
    .addColumn("requests", "integer")
    .addColumn("cache_write_5m_tokens", "integer")
    .addColumn("cache_write_1h_tokens", "integer")
    .addColumn("cache_miss", "jsonb")
    .addColumn("cache_miss_phrase", "text")
    .addColumn("usage_limit", "jsonb")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .dropColumn("usage_source")
    .dropColumn("requests")
    .dropColumn("cache_write_5m_tokens")
    .dropColumn("cache_write_1h_tokens")
    .dropColumn("cache_miss")
    .dropColumn("cache_miss_phrase")
    .dropColumn("usage_limit")
    .execute();
}
