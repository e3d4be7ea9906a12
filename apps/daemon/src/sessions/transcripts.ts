import { writeRuntimeTranscript } from "@talkide/claude-cli";
import { sql } from "kysely";
import type { DaemonDb } from "../db/schema.ts";

/**
 * The database owns a conversation's runtime session: its transcript is stored after each
 * successful turn (store/turn-outcome.ts: whole, or the lines the turn added as a part) and
 * written back here, before a resume, on whichever daemon runs the turn, so a conversation is
 * not tied to the machine that ran its last turn.
 * The stored copy replaces whatever this machine has (an older copy, or a failed turn's
 * branch). Nothing stored (or names that are not safe): nothing written.
 */
export async function materialiseTranscript(
  db: DaemonDb,
  claudeConfigDir: string,
  sessionId: string,
): Promise<boolean> {
  // The transcript is its stored content followed by the parts later turns appended (0005).
  const stored = await db
    .selectFrom("session_transcripts as t")
    .select([
      "t.runtime_session_id",
      "t.project_dir",
      sql<string>`t.content || coalesce((select string_agg(p.content, '' order by p.seq)
        from session_transcript_parts p where p.session_id = t.session_id), '')`.as("content"),
    ])
    .where("t.session_id", "=", sessionId)
    .executeTakeFirst();
  if (stored === undefined) return false;
  return writeRuntimeTranscript(claudeConfigDir, {
    sessionId: stored.runtime_session_id,
    projectDir: stored.project_dir,
    content: stored.content,
  });
}
