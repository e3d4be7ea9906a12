import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * Accounts a team can live with (issue 48):
 *
 * - `browser_sessions`: a browser's sign-in, held in an HttpOnly cookie whose sha256 is stored
 *   here; ended on the server by signing out (or by the person from another session), and
 *   past its idle limit by itself.
 * - `api_tokens` get a name, an expiry and the time they were last used. Tokens issued before
 *   this migration expire 90 days after it ran (the default lifetime of a new token).
 * - `seats`: an invite is a pending place in one project (role, salutation, briefing, an e-mail
 *   only as the owner's contact note) with a one-time link; the person who redeems the link
 *   takes the seat as a new account or as the account they are signed in to.
 * - `members.removed_at`: a removed member's row stays (their turns still name them) but counts
 *   for nothing; the roster's unique keys hold among the current members only.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("browser_sessions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("secret_sha256", "text", (c) => c.notNull().unique())
    .addColumn("user_agent", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("last_used_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("ended_at", "timestamptz")
    .execute();
  await sql`CREATE INDEX browser_sessions_user_idx ON browser_sessions (user_id)`.execute(db);

  await db.schema
    .alterTable("api_tokens")
    .addColumn("name", "text", (c) => c.notNull().defaultTo("API token"))
    .execute();
  await db.schema
    .alterTable("api_tokens")
    .addColumn("expires_at", "timestamptz", (c) =>
      c.notNull().defaultTo(sql`clock_timestamp() + interval '90 days'`),
    )
    .execute();
  await db.schema.alterTable("api_tokens").addColumn("last_used_at", "timestamptz").execute();
  // Every token from now on states its own expiry.
  await sql`ALTER TABLE api_tokens ALTER COLUMN expires_at DROP DEFAULT`.execute(db);

  await db.schema
    .createTable("seats")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("project_id", "integer", (c) =>
      c.notNull().references("projects.id").onDelete("cascade"),
    )
    .addColumn("role", "text", (c) => c.notNull().check(sql`role IN ('owner', 'member')`))
    .addColumn("salutation", "text", (c) => c.notNull())
    .addColumn("team_briefing", "text")
    .addColumn("contact", "text")
    .addColumn("code_sha256", "text", (c) => c.notNull().unique())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("redeemed_at", "timestamptz")
    .addColumn("member_id", "uuid", (c) => c.references("members.id").onDelete("set null"))
    .addColumn("withdrawn_at", "timestamptz")
    .execute();
  await sql`CREATE INDEX seats_project_idx ON seats (project_id)`.execute(db);

  // An account made by taking a seat has no e-mail unless its person adds one: the invite's
  // e-mail is the owner's note, and using it would tell the inviter who has an account.
  await sql`ALTER TABLE users ALTER COLUMN email DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE users ALTER COLUMN email_key DROP NOT NULL`.execute(db);

  await db.schema.alterTable("members").addColumn("removed_at", "timestamptz").execute();
  await sql`ALTER TABLE members DROP CONSTRAINT members_project_user_key`.execute(db);
  await sql`ALTER TABLE members DROP CONSTRAINT members_project_salutation_key`.execute(db);
  await sql`DROP INDEX members_project_salutation_skeleton_key`.execute(db);
  await sql`CREATE UNIQUE INDEX members_project_user_key ON members (project_id, user_id)
    WHERE removed_at IS NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX members_project_salutation_key ON members (project_id, salutation_key)
    WHERE removed_at IS NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX members_project_salutation_skeleton_key
    ON members (project_id, salutation_skeleton) WHERE removed_at IS NULL`.execute(db);
}

async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM members WHERE removed_at IS NOT NULL`.execute(db);
  await sql`DROP INDEX members_project_user_key`.execute(db);
  await sql`DROP INDEX members_project_salutation_key`.execute(db);
  await sql`DROP INDEX members_project_salutation_skeleton_key`.execute(db);
  await sql`ALTER TABLE members ADD CONSTRAINT members_project_user_key UNIQUE (project_id, user_id)`.execute(
    db,
  );
  await sql`ALTER TABLE members ADD CONSTRAINT members_project_salutation_key
    UNIQUE (project_id, salutation_key)`.execute(db);
  await sql`CREATE UNIQUE INDEX members_project_salutation_skeleton_key
    ON members (project_id, salutation_skeleton)`.execute(db);
  await db.schema.alterTable("members").dropColumn("removed_at").execute();
  await sql`DELETE FROM users WHERE email IS NULL`.execute(db);
  await sql`ALTER TABLE users ALTER COLUMN email SET NOT NULL`.execute(db);
  await sql`ALTER TABLE users ALTER COLUMN email_key SET NOT NULL`.execute(db);
  await db.schema.dropTable("seats").execute();
  await db.schema.alterTable("api_tokens").dropColumn("last_used_at").execute();
  await db.schema.alterTable("api_tokens").dropColumn("expires_at").execute();
  await db.schema.alterTable("api_tokens").dropColumn("name").execute();
  await db.schema.dropTable("browser_sessions").execute();
}

export const accounts: Migration = { up, down };
