import { writeRuntimeTranscript } from "@talkide/claude-cli";
import type { DaemonDb } from "../db/schema.ts";

/**
 * The database owns a conversation's runtime session: its transcript is stored after each
 * successful turn (store/turn-outcome.ts) and written back here, before a resume, on whichever
 * daemon runs the turn, so a conversation is not tied to the machine that ran its last turn.
 * The stored copy replaces whatever this machine has (an older copy, or a failed turn's
 * branch). Nothing stored (or names that are not safe): nothing written.
 */
export async function materialiseTranscript(
  db: DaemonDb,
  claudeConfigDir: string,
  sessionId: string,
): Promise<boolean> {
  const stored = await db
    .selectFrom("session_transcripts")
    .select(["runtime_session_id", "project_dir", "content"])
    .where("session_id", "=", sessionId)
    .executeTakeFirst();
  if (stored === undefined) return false;
  return writeRuntimeTranscript(claudeConfigDir, {
    sessionId: stored.runtime_session_id,
    projectDir: stored.project_dir,
    content: stored.content,
  });
}
