import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * One-time sign-in codes (issue 30): an owner's invite hands the new member a link that
 * carries one; redeeming it once, before it expires, yields a normal API token. Only the
 * sha256 of a code is stored, as for API tokens.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("sign_in_codes")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("code_sha256", "text", (c) => c.notNull().unique())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("used_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("sign_in_codes").execute();
}

export const signInCodes: Migration = { up, down };
