/**
 * The database owns a project's conversation, not the machine that ran its last turn: after a
 * successful turn Claude Code's transcript is stored with the turn, and before a resume it is
 * written back on whichever instance runs the next turn, over whatever that machine holds (an
 * older copy, or what a failed turn appended). A failed turn is never stored.
 *
 * Stored in parts: Claude Code only appends to a session's transcript, so a turn stores what
 * was added since the stored copy, once it has checked that the file still begins with that
 * copy (length and sha256): a transcript read as the lines appended after exactly the stored
 * copy is appended as read, anything else is compared whole. Anything else (another session
 * id or folder, a rewritten line, a copy of unknown digest) stores the whole file again as the
 * only part.
 */
import {
  MAX_TRANSCRIPT_PARTS,
  planTurnTranscriptWrite,
  type RuntimeTranscript,
  type TranscriptMark,
  type TurnTranscript,
} from "@talkide/claude-cli";
import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";

/** What a stored transcript is now: remembered in the ledger once its transaction commits. */
export interface StoredTranscriptMark {
  readonly mark: TranscriptMark;
  readonly parts: number;
}

/**
 * Stores a session's transcript as of the given successful turn (in the turn's transaction),
 * planned from the stored row.
 */
export async function storeSessionTranscript(
  db: Kysely<DatabaseSchema>,
  agentSessionId: string,
  turnId: string,
  transcript: TurnTranscript,
): Promise<StoredTranscriptMark> {
  const stored = await db
    .selectFrom("agent_session_transcripts as t")
    .select([
      "t.claude_session_id",
      "t.project_dir",
      "t.content_length",
      "t.content_sha256",
      sql<number>`(SELECT count(*)::int FROM agent_session_transcript_parts p WHERE p.agent_session_id = t.agent_session_id)`.as(
        "parts",
      ),
    ])
    .where("t.agent_session_id", "=", agentSessionId)
    .executeTakeFirst();
  // A copy of unknown digest (stored before parts existed), or one of many parts, is
  // stored whole again.
  const mark: TranscriptMark | null =
    stored === undefined ||
    stored.content_length === null ||
    stored.content_sha256 === null ||
    stored.parts >= MAX_TRANSCRIPT_PARTS
      ? null
      : {
          sessionId: stored.claude_session_id,
          projectDir: stored.project_dir,
          length: stored.content_length,
          sha256: stored.content_sha256,
        };
  const plan = planTurnTranscriptWrite(mark, transcript);
  const header = {
    claude_session_id: plan.mark.sessionId,
    project_dir: plan.mark.projectDir,
    content_length: plan.mark.length,
    content_sha256: plan.mark.sha256,
    turn_id: turnId,
  };
  if (plan.append !== null) {
    await db
      .updateTable("agent_session_transcripts")
      .set({ ...header, updated_at: sql<string>`clock_timestamp()` })
      .where("agent_session_id", "=", agentSessionId)
      .execute();
    if (plan.append.length > 0) {
      await db
        .insertInto("agent_session_transcript_parts")
        .values({
          agent_session_id: agentSessionId,
          seq: sql<number>`(SELECT COALESCE(MAX(seq), 0) + 1 FROM agent_session_transcript_parts WHERE agent_session_id = ${agentSessionId})`,
          content: plan.append,
          turn_id: turnId,
        })
        .execute();
    }
    // `stored` is defined here: only a stored mark plans an append.
    return { mark: plan.mark, parts: (stored?.parts ?? 0) + (plan.append.length > 0 ? 1 : 0) };
  }
  await db
    .insertInto("agent_session_transcripts")
    .values({ agent_session_id: agentSessionId, ...header })
    .onConflict((oc) =>
      oc.column("agent_session_id").doUpdateSet({
        ...header,
        updated_at: sql<string>`clock_timestamp()`,
      }),
    )
    .execute();
  await db
    .deleteFrom("agent_session_transcript_parts")
    .where("agent_session_id", "=", agentSessionId)
    .execute();
  await db
    .insertInto("agent_session_transcript_parts")
    .values({
      agent_session_id: agentSessionId,
      seq: 1,
      content: transcript.whole().content,
      turn_id: turnId,
    })
    .execute();
  return { mark: plan.mark, parts: 1 };
}

/** The stored transcript of a session, whole; null when nothing is stored. */
export async function loadSessionTranscript(
  db: Kysely<DatabaseSchema>,
  agentSessionId: string,
): Promise<RuntimeTranscript | null> {
  const stored = await db
    .selectFrom("agent_session_transcripts as t")
    .select([
      "t.claude_session_id",
      "t.project_dir",
      sql<string>`COALESCE((SELECT string_agg(p.content, '' ORDER BY p.seq) FROM agent_session_transcript_parts p WHERE p.agent_session_id = t.agent_session_id), '')`.as(
        "content",
      ),
    ])
    .where("t.agent_session_id", "=", agentSessionId)
    .executeTakeFirst();
  if (stored === undefined) return null;
  return {
    sessionId: stored.claude_session_id,
    projectDir: stored.project_dir,
    content: stored.content,
  };
}
