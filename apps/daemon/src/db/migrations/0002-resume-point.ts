import type { Kysely } from "kysely";

/**
 * The last message of a session's last successful turn. The next turn resumes there
 * (`--resume-session-at`), so whatever a failed turn left in the runtime's transcript never
 * reaches the model again. Null for sessions from before this column: they resume plainly.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("sessions").addColumn("resume_at_message_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("sessions").dropColumn("resume_at_message_id").execute();
}
