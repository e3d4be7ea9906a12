/**
 * The database owns a project's conversation, not the machine that ran its last turn: after a
 * successful turn Claude Code's transcript is stored with the turn, and before a resume it is
 * written back on whichever instance runs the next turn, over whatever that machine holds (an
 * older copy, or what a failed turn appended). A failed turn is never stored.
 */
import { writeRuntimeTranscript, type RuntimeTranscript } from "@talkide/claude-cli";
import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";
import type { SessionRow } from "./session-pinning.ts";

/** Stores a session's transcript as of the given successful turn (in the turn's transaction). */
export async function storeSessionTranscript(
  db: Kysely<DatabaseSchema>,
  agentSessionId: string,
  turnId: string,
  transcript: RuntimeTranscript,
): Promise<void> {
  await db
    .insertInto("agent_session_transcripts")
    .values({
      agent_session_id: agentSessionId,
      claude_session_id: transcript.sessionId,
      project_dir: transcript.projectDir,
      content: transcript.content,
      turn_id: turnId,
    })
    .onConflict((oc) =>
      oc.column("agent_session_id").doUpdateSet({
        claude_session_id: transcript.sessionId,
        project_dir: transcript.projectDir,
        content: transcript.content,
        turn_id: turnId,
        updated_at: sql<string>`clock_timestamp()`,
      }),
    )
    .execute();
}

/**
 * Writes the session's stored transcript where Claude Code looks for it before a resume.
 * Returns false when nothing is stored (a session from before this release: the machine's
 * own copy, if any, is resumed; without one the turn starts a new session, visibly).
 */
export async function materialiseSessionTranscript(
  db: Kysely<DatabaseSchema>,
  claudeConfigDir: string,
  session: SessionRow,
): Promise<boolean> {
  const stored = await db
    .selectFrom("agent_session_transcripts")
    .select(["claude_session_id", "project_dir", "content"])
    .where("agent_session_id", "=", session.id)
    .executeTakeFirst();
  if (stored === undefined) return false;
  return writeRuntimeTranscript(claudeConfigDir, {
    sessionId: stored.claude_session_id,
    projectDir: stored.project_dir,
    content: stored.content,
  });
}
