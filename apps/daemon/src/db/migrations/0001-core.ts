import { sql, type Kysely } from "kysely";

/**
 * The daemon's core tables. Invariants the scheduler relies on live in the schema, so that
 * even a second daemon pointed at the same server database cannot break them:
 * - one delivery per (agent, message): intake is idempotent by a unique key;
 * - at most one running delivery per (agent, conversation): a partial unique index;
 * - at most one live session per (agent, conversation): a partial unique index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("daemon_meta")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_tokens")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("scope", "text", (c) => c.notNull().check(sql`scope in ('admin', 'intake')`))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("revoked_at", "timestamptz")
    .execute();

  await db.schema
    .createTable("agents")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("runtime", "text", (c) => c.notNull())
    .addColumn("workspace_dir", "text", (c) => c.notNull())
    .addColumn("runtime_meta", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("reset_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_reset_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable("sessions")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("agent_id", "text", (c) => c.notNull().references("agents.id").onDelete("cascade"))
    .addColumn("conversation_id", "text", (c) => c.notNull())
    .addColumn("runtime", "text", (c) => c.notNull())
    .addColumn("runtime_session_id", "text")
    .addColumn("standing_prompt_version", "text", (c) => c.notNull())
    .addColumn("turn_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("cumulative_cost_usd", "double precision")
    .addColumn("invalidated_at", "timestamptz")
    .addColumn("invalidated_reason", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index sessions_one_live_per_conversation
    on sessions (agent_id, conversation_id) where invalidated_at is null`.execute(db);

  await db.schema
    .createTable("deliveries")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("seq", "integer", (c) => c.notNull().generatedAlwaysAsIdentity().unique())
    .addColumn("agent_id", "text", (c) => c.notNull().references("agents.id").onDelete("cascade"))
    .addColumn("message_id", "text", (c) => c.notNull())
    .addColumn("conversation_id", "text", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("payload", "jsonb", (c) => c.notNull())
    .addColumn("state", "text", (c) =>
      c
        .notNull()
        .defaultTo("accepted")
        .check(sql`state in ('accepted', 'running', 'completed', 'failed')`),
    )
    .addColumn("failure_reason", "text")
    .addColumn("failure_message", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("accepted_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("started_at", "timestamptz")
    .addColumn("finished_at", "timestamptz")
    .addUniqueConstraint("deliveries_agent_message_unique", ["agent_id", "message_id"])
    .execute();
  await sql`create unique index deliveries_one_running_per_session
    on deliveries (agent_id, conversation_id) where state = 'running'`.execute(db);
  await sql`create index deliveries_waiting on deliveries (agent_id, conversation_id, seq)
    where state = 'accepted'`.execute(db);
  await sql`create index deliveries_by_state on deliveries (state, seq)`.execute(db);

  await db.schema
    .createTable("turns")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("delivery_id", "uuid", (c) =>
      c.notNull().references("deliveries.id").onDelete("cascade"),
    )
    .addColumn("session_id", "uuid", (c) =>
      c.notNull().references("sessions.id").onDelete("cascade"),
    )
    .addColumn("agent_id", "text", (c) => c.notNull())
    .addColumn("conversation_id", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("state", "text", (c) =>
      c
        .notNull()
        .defaultTo("running")
        .check(sql`state in ('running', 'completed', 'failed', 'interrupted')`),
    )
    .addColumn("resumed", "boolean", (c) => c.notNull())
    .addColumn("resumed_runtime_session_id", "text")
    .addColumn("runtime_session_id", "text")
    .addColumn("failure_reason", "text")
    .addColumn("failure_message", "text")
    .addColumn("exit_code", "integer")
    .addColumn("cost_usd", "double precision")
    .addColumn("cumulative_cost_usd", "double precision")
    .addColumn("claude_version", "text")
    .addColumn("events", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("started_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("finished_at", "timestamptz")
    .execute();
  await sql`create index turns_by_delivery on turns (delivery_id, started_at)`.execute(db);
  await sql`create index turns_by_session on turns (session_id, started_at)`.execute(db);
  await sql`create index turns_running on turns (state) where state = 'running'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["turns", "deliveries", "sessions", "agents", "api_tokens", "daemon_meta"]) {
    await db.schema.dropTable(table).execute();
  }
}
