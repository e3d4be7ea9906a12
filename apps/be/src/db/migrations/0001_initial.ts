import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Migrations are written against `Kysely<unknown>` on purpose: they describe the schema as it
// was at the time, not as the current TypeScript types say it is.

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("email_key", "text", (c) => c.notNull().unique())
    .addColumn("display_name", "text", (c) => c.notNull())
    .addColumn("phone", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();

  await db.schema
    .createTable("api_tokens")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("token_sha256", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();

  // Project ids are the input of the port derivation (8090 + id, 5200 + id), valid for 1..999
  // only. The sequence enforces that domain: past 999 nextval fails instead of handing out an
  // id whose ports would collide with the platform's.
  await sql`CREATE SEQUENCE project_id_seq AS integer START WITH 1 MINVALUE 1 MAXVALUE 999 NO CYCLE`.execute(
    db,
  );

  await db.schema
    .createTable("projects")
    .addColumn("id", "integer", (c) =>
      c
        .primaryKey()
        .defaultTo(sql`nextval('project_id_seq')`)
        .check(sql`id BETWEEN 1 AND 999`),
    )
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("url", "text")
    .addColumn("description", "text")
    .addColumn("backend_language", "text", (c) => c.notNull().defaultTo("Kotlin"))
    .addColumn("backend_framework", "text", (c) => c.notNull().defaultTo("Spring Boot"))
    .addColumn("frontend_language", "text", (c) => c.notNull().defaultTo("TypeScript"))
    .addColumn("frontend_framework", "text", (c) => c.notNull().defaultTo("Vue.js"))
    .addColumn("workspace_dir", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await sql`ALTER SEQUENCE project_id_seq OWNED BY projects.id`.execute(db);

  await db.schema
    .createTable("members")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("project_id", "integer", (c) =>
      c.notNull().references("projects.id").onDelete("cascade"),
    )
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("role", "text", (c) => c.notNull().check(sql`role IN ('owner', 'member')`))
    .addColumn("salutation", "text", (c) => c.notNull())
    .addColumn("salutation_key", "text", (c) => c.notNull())
    .addColumn("team_briefing", "text")
    // clock_timestamp, not now(): two members added in one transaction still get distinct,
    // ordered instants (now() is the transaction's start time).
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addUniqueConstraint("members_project_user_key", ["project_id", "user_id"])
    .addUniqueConstraint("members_project_salutation_key", ["project_id", "salutation_key"])
    .execute();

  await db.schema
    .createTable("agent_sessions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("project_id", "integer", (c) =>
      c.notNull().references("projects.id").onDelete("cascade"),
    )
    .addColumn("claude_session_id", "text", (c) => c.notNull())
    .addColumn("cumulative_cost_usd", "double precision")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("ended_at", "timestamptz")
    .execute();
  // At most one live (resumable) session per project.
  await sql`CREATE UNIQUE INDEX agent_sessions_one_live_per_project ON agent_sessions (project_id) WHERE ended_at IS NULL`.execute(
    db,
  );

  await db.schema
    .createTable("turns")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("project_id", "integer", (c) =>
      c.notNull().references("projects.id").onDelete("cascade"),
    )
    .addColumn("number", "integer", (c) => c.notNull())
    .addColumn("member_id", "uuid", (c) => c.notNull().references("members.id"))
    .addColumn("agent_session_id", "uuid", (c) => c.references("agent_sessions.id"))
    .addColumn("claude_session_id", "text")
    .addColumn("resumed", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("prompt", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) =>
      c.notNull().check(sql`status IN ('queued', 'running', 'succeeded', 'failed')`),
    )
    .addColumn("error_code", "text")
    .addColumn("error_message", "text")
    .addColumn("result_text", "text")
    .addColumn("cost_usd", "double precision")
    .addColumn("cumulative_cost_usd", "double precision")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("started_at", "timestamptz")
    .addColumn("finished_at", "timestamptz")
    .addUniqueConstraint("turns_project_number_key", ["project_id", "number"])
    .execute();

  await db.schema
    .createTable("turn_events")
    .addColumn("turn_id", "uuid", (c) => c.notNull().references("turns.id").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint("turn_events_pkey", ["turn_id", "seq"])
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "turn_events",
    "turns",
    "agent_sessions",
    "members",
    "projects",
    "api_tokens",
    "users",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}

export const initialSchema: Migration = { up, down };
