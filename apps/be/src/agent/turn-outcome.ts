/**
 * Records how a turn ended: succeeded (with the session it continued or started and its cost)
 * or failed (with a code and our message), in the turn record and as its terminal event; then
 * releases the live turn once its events are stored.
 */
import { type RuntimeTranscript, TranscriptLedger } from "@talkide/claude-cli";
import { transcriptAfterTurn, type TurnOutcome } from "@talkide/turn-engine";
import { sql } from "kysely";
import type { TurnRow } from "../domain/turns.ts";
import type { SessionRow } from "./session-pinning.ts";
import { storeSessionTranscript } from "./session-transcripts.ts";
import type { LiveTurn } from "./turn-events.ts";
import type { TurnServices } from "./turn-services.ts";

/**
 * Records the classified outcome of the turn's spawn (`classifyTurnOutcome` of
 * @talkide/turn-engine); `resumedFrom` is the session it continued, if any.
 */
export async function recordOutcome(
  services: TurnServices,
  turn: TurnRow,
  live: LiveTurn,
  classified: TurnOutcome,
  resumedFrom: SessionRow | undefined,
): Promise<void> {
  const { db, logger } = services;
  const cost = classified.costUsd;
  if (classified.kind !== "succeeded") {
    const { result, error } = classified;
    if (resumedFrom !== undefined && result.totalCostUsd !== null && result.sessionId !== null) {
      // Money was spent inside the session; the next turn's difference must not count it twice.
      await db
        .updateTable("agent_sessions")
        .set({
          cumulative_cost_usd: result.totalCostUsd,
          updated_at: sql<string>`clock_timestamp()`,
        })
        .where("id", "=", resumedFrom.id)
        .execute();
    }
    // The CLI's own words (which may name the gateway or advise `/login`) are for the
    // operator's log; the turn record and the stream get a code and our message.
    logger.warn(
      {
        turnId: turn.id,
        code: error.code,
        reason: result.reason,
        detail: result.message,
        stderrTail: result.stderrTail,
      },
      "claude turn failed",
    );
    await failTurn(
      services,
      turn,
      live,
      error.code,
      error.message,
      cost,
      result.totalCostUsd,
      result.sessionId,
    );
    return;
  }
  const { result } = classified;
  // The session's state after this turn, stored with it so any instance can resume it.
  const transcript = await transcriptAfterTurn(
    services.db,
    services.claude.claudeConfigDir,
    resumedFrom?.id ?? null,
    result.sessionId,
  );
  if (transcript === null) {
    logger.warn(
      { turnId: turn.id, sessionId: result.sessionId },
      "Claude Code left no transcript for this session; another instance cannot resume it",
    );
  }
  const outcome: SucceededOutcome = {
    sessionId: result.sessionId,
    lastMessageId: result.lastMessageId,
    resultText: result.resultText,
    cost,
    cumulative: result.totalCostUsd,
  };
  const appended =
    resumedFrom !== undefined &&
    transcript !== null &&
    (await storeAppendedOutcome(services, turn, resumedFrom, transcript, outcome));
  if (!appended) await storeOutcome(services, turn, resumedFrom, transcript, outcome);
  // `demoModel: true` beside the cost: the local demo model's costs are not real money.
  logger.info({ turnId: turn.id, costUsd: cost, demoModel: services.demoModel }, "turn succeeded");
  live.emit("turn.succeeded", {
    turnId: turn.id,
    sessionId: result.sessionId,
    resumed: resumedFrom !== undefined,
    resultText: result.resultText,
    costUsd: cost,
    cumulativeCostUsd: result.totalCostUsd,
    demoModel: services.demoModel,
  });
  await releaseTurn(services, turn.id, live);
}

export async function failTurn(
  services: TurnServices,
  turn: TurnRow,
  live: LiveTurn,
  code: string,
  message: string,
  cost: number | null,
  cumulative: number | null,
  /** The session the CLI reported for this turn, even though the turn failed. */
  claudeSessionId: string | null,
  /** Further fields of the turn record the failed turn had not stored yet. */
  unrecorded: { readonly workspace_instruction_files?: string } = {},
): Promise<void> {
  await services.db
    .updateTable("turns")
    .set({
      ...unrecorded,
      status: "failed",
      claude_session_id: claudeSessionId,
      error_code: code,
      error_message: message,
      cost_usd: cost,
      cumulative_cost_usd: cumulative,
      demo_model: services.demoModel,
      // A turn started by its own message may fail before its process record marked it started.
      started_at: sql<string>`COALESCE(started_at, clock_timestamp())`,
      finished_at: sql<string>`clock_timestamp()`,
    })
    .where("id", "=", turn.id)
    .execute();
  services.logger.warn({ turnId: turn.id, code }, "turn failed");
  live.emit("turn.failed", {
    turnId: turn.id,
    code,
    message,
    sessionId: claudeSessionId,
    costUsd: cost,
    demoModel: services.demoModel,
  });
  await releaseTurn(services, turn.id, live);
}

async function releaseTurn(services: TurnServices, turnId: string, live: LiveTurn): Promise<void> {
  await live.flushed();
  services.hub.close(turnId);
}

/** What a successful turn stores besides its transcript. */
interface SucceededOutcome {
  readonly sessionId: string;
  readonly lastMessageId: string | null;
  readonly resultText: string;
  readonly cost: number | null;
  readonly cumulative: number | null;
}

/**
 * The common case of a resumed turn in one statement: the lines the CLI added since the
 * transcript this instance stored last (TranscriptLedger), the session's new point and the
 * turn's record. The statement requires that the stored transcript is still the one the
 * ledger remembers (written by that turn); when it is not (another instance stored one since,
 * or this instance does not remember any), it writes nothing and returns false.
 */
async function storeAppendedOutcome(
  services: TurnServices,
  turn: TurnRow,
  session: SessionRow,
  transcript: RuntimeTranscript,
  outcome: SucceededOutcome,
): Promise<boolean> {
  const ledger = TranscriptLedger.of(services.db);
  const plan = ledger.plan(session.id, transcript);
  if (plan.append === null) return false;
  const { rows } = await sql<{ appended: boolean }>`
    WITH transcript AS (
      UPDATE agent_session_transcripts SET
        claude_session_id = ${plan.mark.sessionId},
        project_dir = ${plan.mark.projectDir},
        content_length = ${plan.mark.length},
        content_sha256 = ${plan.mark.sha256},
        turn_id = ${turn.id},
        updated_at = clock_timestamp()
      WHERE agent_session_id = ${session.id} AND turn_id = ${plan.append.afterTurnId}
      RETURNING agent_session_id
    ), part AS (
      INSERT INTO agent_session_transcript_parts (agent_session_id, seq, content, turn_id)
      SELECT ${session.id}::uuid, (SELECT COALESCE(MAX(seq), 0) + 1 FROM agent_session_transcript_parts
                                   WHERE agent_session_id = ${session.id}), ${plan.append.delta}::text,
             ${turn.id}::uuid
      FROM transcript WHERE ${plan.append.delta}::text <> ''
    ), session AS (
      UPDATE agent_sessions SET
        claude_session_id = ${outcome.sessionId},
        cumulative_cost_usd = ${outcome.cumulative},
        resume_at_message_id = ${outcome.lastMessageId},
        updated_at = clock_timestamp()
      WHERE id = ${session.id} AND EXISTS (SELECT 1 FROM transcript)
    ), succeeded AS (
      UPDATE turns SET
        status = 'succeeded',
        agent_session_id = ${session.id},
        claude_session_id = ${outcome.sessionId},
        resumed = true,
        result_text = ${outcome.resultText},
        cost_usd = ${outcome.cost},
        cumulative_cost_usd = ${outcome.cumulative},
        demo_model = ${services.demoModel},
        finished_at = clock_timestamp()
      WHERE id = ${turn.id} AND EXISTS (SELECT 1 FROM transcript)
    )
    SELECT EXISTS (SELECT 1 FROM transcript) AS appended`.execute(services.db);
  if (rows[0]?.appended !== true) return false;
  ledger.stored(session.id, turn.id, plan, true);
  return true;
}

/** The general case, in one transaction: a new or continued session, any transcript. */
async function storeOutcome(
  services: TurnServices,
  turn: TurnRow,
  resumedFrom: SessionRow | undefined,
  transcript: RuntimeTranscript | null,
  outcome: SucceededOutcome,
): Promise<void> {
  const { db } = services;
  const stored = await db.transaction().execute(async (trx) => {
    let id: string;
    if (resumedFrom !== undefined) {
      // A resume continues the conversation (Claude Code may announce a new id for it).
      await trx
        .updateTable("agent_sessions")
        .set({
          claude_session_id: outcome.sessionId,
          cumulative_cost_usd: outcome.cumulative,
          resume_at_message_id: outcome.lastMessageId,
          updated_at: sql<string>`clock_timestamp()`,
        })
        .where("id", "=", resumedFrom.id)
        .execute();
      id = resumedFrom.id;
    } else {
      await trx
        .updateTable("agent_sessions")
        .set({ ended_at: sql<string>`clock_timestamp()` })
        .where("project_id", "=", turn.project_id)
        .where("ended_at", "is", null)
        .execute();
      const row = await trx
        .insertInto("agent_sessions")
        .values({
          project_id: turn.project_id,
          claude_session_id: outcome.sessionId,
          cumulative_cost_usd: outcome.cumulative,
          resume_at_message_id: outcome.lastMessageId,
          agent_sha256: services.claude.pinned.agentSha256,
          plugin_sha256: services.claude.pinned.pluginSha256,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      id = row.id;
    }
    const mark =
      transcript === null ? null : await storeSessionTranscript(trx, id, turn.id, transcript);
    await trx
      .updateTable("turns")
      .set({
        status: "succeeded",
        agent_session_id: id,
        claude_session_id: outcome.sessionId,
        resumed: resumedFrom !== undefined,
        result_text: outcome.resultText,
        cost_usd: outcome.cost,
        cumulative_cost_usd: outcome.cumulative,
        demo_model: services.demoModel,
        finished_at: sql<string>`clock_timestamp()`,
      })
      .where("id", "=", turn.id)
      .execute();
    return { id, mark };
  });
  if (stored.mark !== null) {
    TranscriptLedger.of(db).remember(stored.id, turn.id, stored.mark.mark, stored.mark.parts);
  }
}
