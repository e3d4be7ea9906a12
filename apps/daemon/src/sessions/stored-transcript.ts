import type { RuntimeTranscript } from "@talkide/claude-cli";
import { sql } from "kysely";
import type { DaemonDb } from "../db/schema.ts";

/**
 * The daemon as the turn engine's transcript host: a conversation's runtime session is stored
 * after each successful turn (store/turn-success.ts: whole, or the lines the turn added as a
 * part), and the engine writes it back before a cold resume on whichever daemon runs the turn
 * (`materialiseTranscript` of @talkide/turn-engine). Null when nothing is stored.
 */
export async function loadStoredTranscript(
  db: DaemonDb,
  sessionId: string,
): Promise<RuntimeTranscript | null> {
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
  if (stored === undefined) return null;
  return {
    sessionId: stored.runtime_session_id,
    projectDir: stored.project_dir,
    content: stored.content,
  };
}
