import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * The database owns a project's conversation: Claude Code's transcript of the session as of
 * its last successful turn, stored with that turn and written back before a resume on
 * whichever instance runs the next turn (a second machine has no copy of its own). A failed
 * turn never reaches it.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("agent_session_transcripts")
    .addColumn("agent_session_id", "uuid", (c) =>
      c.primaryKey().references("agent_sessions.id").onDelete("cascade"),
    )
    .addColumn("claude_session_id", "text", (c) => c.notNull())
    /** The folder under `<CLAUDE_CONFIG_DIR>/projects` Claude Code wrote it to. */
    .addColumn("project_dir", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("turn_id", "uuid", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("agent_session_transcripts").execute();
}

export const sessionTranscripts: Migration = { up, down };
