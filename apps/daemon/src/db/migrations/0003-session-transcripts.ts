import { sql, type Kysely } from "kysely";

/**
 * The runtime's transcript of a session as of its last successful turn, owned by the database
 * so that whichever daemon runs the conversation's next turn can resume it. Written only with
 * a successful turn; a failed turn never reaches it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("session_transcripts")
    .addColumn("session_id", "uuid", (c) =>
      c.primaryKey().references("sessions.id").onDelete("cascade"),
    )
    .addColumn("runtime_session_id", "text", (c) => c.notNull())
    /** The folder under `<CLAUDE_CONFIG_DIR>/projects` the runtime wrote it to. */
    .addColumn("project_dir", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("turn_id", "uuid", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("session_transcripts").execute();
}
