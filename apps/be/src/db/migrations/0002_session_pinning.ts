import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * What a session needs so that a failed turn never becomes part of it and a new release of
 * Mara's agent file reaches existing projects:
 * - `resume_at_message_id`: the last message of the session's last successful turn; the next
 *   turn resumes there (`--resume-session-at`), so whatever a failed turn left in Claude
 *   Code's transcript is not part of the conversation.
 * - `agent_sha256` / `plugin_sha256`: what the session was started with; a session started
 *   with other bytes is ended and the turn starts a fresh one (null: started before pinning).
 * - `turns.session_reset`: why this turn did not continue the project's session, if it did not.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("agent_sessions")
    .addColumn("resume_at_message_id", "text")
    .addColumn("agent_sha256", "text")
    .addColumn("plugin_sha256", "text")
    .execute();
  await db.schema.alterTable("turns").addColumn("session_reset", "text").execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("turns").dropColumn("session_reset").execute();
  await db.schema
    .alterTable("agent_sessions")
    .dropColumn("resume_at_message_id")
    .dropColumn("agent_sha256")
    .dropColumn("plugin_sha256")
    .execute();
}

export const sessionPinning: Migration = { up, down };
