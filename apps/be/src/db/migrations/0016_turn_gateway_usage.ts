import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * A turn's exact usage from the LLM gateway (issue 51): the prompt-cache writes split by their
 * lifetime (`cache_write_5m_tokens`, `cache_write_1h_tokens`; `cache_creation_input_tokens`
 * stays their sum), and why the turn's first request missed the cache (`cache_miss`: the
 * gateway's explanation with the backend's phrase). Null for every turn before this migration,
 * whose figures are the CLI's.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .addColumn("cache_write_5m_tokens", "integer")
    .addColumn("cache_write_1h_tokens", "integer")
    .addColumn("cache_miss", "jsonb")
    .execute();
  // Nothing else reads it: a check keeps the column an object.
  await sql`ALTER TABLE turns ADD CONSTRAINT turns_cache_miss_object
    CHECK (cache_miss IS NULL OR jsonb_typeof(cache_miss) = 'object')`.execute(db);
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .dropColumn("cache_write_5m_tokens")
    .dropColumn("cache_write_1h_tokens")
    .dropColumn("cache_miss")
    .execute();
}

export const turnGatewayUsage: Migration = { up, down };
