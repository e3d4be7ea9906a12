/**
 * Records how a turn ended: succeeded (with the session it continued or started and its cost)
 * or failed (with a code and our message), in the turn record and as its terminal event; then
 * releases the live turn once its events are stored.
 */
import {
  allInputTokens,
  cliFallbackOfTurn,
  type TokenUsage,
  TranscriptLedger,
  type TurnTranscript,
} from "@talkide/claude-cli";
import {
  sessionCacheReuseOf,
  usageColumns,
  type transcriptAfterTurn,
  type TurnOutcome,
} from "@talkide/turn-engine";
import type { CliFallback } from "@talkide/be-api";
import { type RawBuilder, sql } from "kysely";
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
  /** The session's state after a successful turn (the pipeline's `transcriptAfterTurn`). */
  transcript: Awaited<ReturnType<typeof transcriptAfterTurn>>,
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
      {},
      result.usage,
    );
    return;
  }
  const { result } = classified;
  // The session's state after this turn is stored with it so any instance can resume it.
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
    usage: result.usage,
    // Recorded, and the session continues: see "A gateway that refuses deferred tools" in the
    // README (a new session would pay a whole prefix write and meet the same refusal).
    cliFallback: cliFallbackOfTurn(
      transcript,
      turn.started_at === null ? null : Date.parse(turn.started_at),
    ),
  };
  const appended =
    resumedFrom !== undefined && transcript !== null
      ? await storeAppendedOutcome(services, turn, resumedFrom, transcript, outcome)
      : null;
  const sessionCacheReuse =
    appended !== null
      ? appended.sessionCacheReuse
      : await storeOutcome(services, turn, resumedFrom, transcript, outcome);
  // `demoModel: true` beside the cost: the local demo model's costs are not real money. At
  // debug, as every per-turn line: the terminal of `npm start` keeps its sign-in lines in view
  // (TALKIDE_LOG_LEVEL=debug shows them).
  logger.debug(
    {
      turnId: turn.id,
      costUsd: cost,
      demoModel: services.demoModel,
      ...(outcome.cliFallback === null ? {} : { cliFallback: outcome.cliFallback }),
    },
    "turn succeeded",
  );
  live.emit("turn.succeeded", {
    turnId: turn.id,
    sessionId: result.sessionId,
    resumed: resumedFrom !== undefined,
    resultText: result.resultText,
    costUsd: cost,
    cumulativeCostUsd: result.totalCostUsd,
    demoModel: services.demoModel,
    usage: result.usage,
    sessionCacheReuse,
    cliFallback: outcome.cliFallback,
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
  /** The tokens the turn used before it failed, when the CLI reported them. */
  usage: TokenUsage | null = null,
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
      ...usageColumns(usage),
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
    usage,
  });
  await releaseTurn(services, turn.id, live);
}

/**
 * The session's running token totals with this succeeded turn (`session_input_tokens`, all
 * input, and `session_cache_read_tokens`): the latest earlier turn of the session that carries
 * them, plus this turn's. One indexed look back, whatever the session's length; a session's
 * turns from before migration 0011 count as none. Null when the turn reported no tokens.
 */
function sessionTotals(
  projectId: number,
  sessionId: string,
  turnId: string,
  usage: TokenUsage | null,
): { readonly input: RawBuilder<number | null>; readonly cacheRead: RawBuilder<number | null> } {
  if (usage === null) return { input: sql<null>`NULL`, cacheRead: sql<null>`NULL` };
  const previous = (column: "session_input_tokens" | "session_cache_read_tokens") =>
    sql`COALESCE((SELECT p.${sql.ref(column)} FROM turns p
                  WHERE p.project_id = ${projectId} AND p.agent_session_id = ${sessionId}::uuid
                    AND p.id <> ${turnId}::uuid AND p.${sql.ref(column)} IS NOT NULL
                  ORDER BY p.number DESC LIMIT 1), 0)`;
  return {
    input: sql<number>`${previous("session_input_tokens")} + ${allInputTokens(usage)}::bigint`,
    cacheRead: sql<number>`${previous("session_cache_read_tokens")} + ${usage.cacheReadInputTokens}::bigint`,
  };
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
  readonly usage: TokenUsage | null;
  /** The CLI's fallback during the turn that makes the session's later requests heavier. */
  readonly cliFallback: CliFallback | null;
}

/**
 * The common case of a resumed turn in one statement: the lines the CLI added since the
 * transcript this instance stored last (TranscriptLedger), the session's new point and the
 * turn's record. The statement requires that the stored transcript is still the one the
 * ledger remembers (written by that turn); when it is not (another instance stored one since,
 * or this instance does not remember any), it writes nothing and returns null. Stored, it
 * returns the session's cache reuse as the turn's record now says.
 */
async function storeAppendedOutcome(
  services: TurnServices,
  turn: TurnRow,
  session: SessionRow,
  transcript: TurnTranscript,
  outcome: SucceededOutcome,
): Promise<{ readonly sessionCacheReuse: number | null } | null> {
  const ledger = TranscriptLedger.of(services.db);
  const plan = ledger.plan(session.id, transcript);
  if (plan.append === null) return null;
  const totals = sessionTotals(turn.project_id, session.id, turn.id, outcome.usage);
  const usage = usageColumns(outcome.usage);
  const { rows } = await sql<SessionTotalsRow & { appended: boolean }>`
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
        input_tokens = ${usage.input_tokens}::int,
        cache_creation_input_tokens = ${usage.cache_creation_input_tokens}::int,
        cache_read_input_tokens = ${usage.cache_read_input_tokens}::int,
        output_tokens = ${usage.output_tokens}::int,
        session_input_tokens = ${totals.input},
        session_cache_read_tokens = ${totals.cacheRead},
        cli_fallback = ${outcome.cliFallback},
        demo_model = ${services.demoModel},
        finished_at = clock_timestamp()
      WHERE id = ${turn.id} AND EXISTS (SELECT 1 FROM transcript)
      RETURNING session_input_tokens, session_cache_read_tokens
    )
    SELECT EXISTS (SELECT 1 FROM transcript) AS appended,
           (SELECT session_input_tokens FROM succeeded) AS session_input_tokens,
           (SELECT session_cache_read_tokens FROM succeeded) AS session_cache_read_tokens`.execute(
    services.db,
  );
  const row = rows[0];
  if (row?.appended !== true) return null;
  ledger.stored(session.id, turn.id, plan, true);
  return { sessionCacheReuse: sessionCacheReuseOf(row) };
}

/** What a turn's record says of its session's tokens so far. */
type SessionTotalsRow = Pick<TurnRow, "session_input_tokens" | "session_cache_read_tokens">;

/** The general case, in one transaction: a new or continued session, any transcript. */
async function storeOutcome(
  services: TurnServices,
  turn: TurnRow,
  resumedFrom: SessionRow | undefined,
  transcript: TurnTranscript | null,
  outcome: SucceededOutcome,
): Promise<number | null> {
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
    const totals = sessionTotals(turn.project_id, id, turn.id, outcome.usage);
    const recorded = await trx
      .updateTable("turns")
      .set({
        status: "succeeded",
        agent_session_id: id,
        claude_session_id: outcome.sessionId,
        resumed: resumedFrom !== undefined,
        result_text: outcome.resultText,
        cost_usd: outcome.cost,
        cumulative_cost_usd: outcome.cumulative,
        ...usageColumns(outcome.usage),
        session_input_tokens: totals.input,
        session_cache_read_tokens: totals.cacheRead,
        cli_fallback: outcome.cliFallback,
        demo_model: services.demoModel,
        finished_at: sql<string>`clock_timestamp()`,
      })
      .where("id", "=", turn.id)
      .returning(["session_input_tokens", "session_cache_read_tokens"])
      .executeTakeFirst();
    return { id, mark, recorded };
  });
  if (stored.mark !== null) {
    TranscriptLedger.of(db).remember(
      stored.id,
      turn.id,
      stored.mark.mark,
      stored.mark.parts,
      transcript?.cursor ?? null,
    );
  }
  return stored.recorded === undefined ? null : sessionCacheReuseOf(stored.recorded);
}

/**
 * A turn a member stopped (its process was ended by the stop): recorded as `stopped` with what
 * Mara had answered so far, and `turn.stopped` ends its stream. The session is not touched: it
 * continues from its last finished turn, so the next message works as if this one had not run.
 */
export async function recordStopped(
  services: TurnServices,
  turn: TurnRow,
  live: LiveTurn,
  stoppedBy: string,
): Promise<void> {
  const answered = live.events.flatMap((event) =>
    event.type === "agent.text" && !("unrecognized" in event) ? [event.data.text] : [],
  );
  const resultText = answered.length === 0 ? null : answered.join("\n\n");
  await services.db
    .updateTable("turns")
    .set({
      status: "stopped",
      result_text: resultText,
      demo_model: services.demoModel,
      started_at: sql<string>`COALESCE(started_at, clock_timestamp())`,
      finished_at: sql<string>`clock_timestamp()`,
    })
    .where("id", "=", turn.id)
    .execute();
  services.logger.debug({ turnId: turn.id }, "turn stopped by a member");
  live.emit("turn.stopped", {
    turnId: turn.id,
    stoppedBy,
    resultText,
    demoModel: services.demoModel,
  });
  await releaseTurn(services, turn.id, live);
}

/** Who asked a turn to stop (their salutation), or null when nobody did. */
export async function stopRequestedBy(
  services: TurnServices,
  turnId: string,
): Promise<string | null> {
  const row = await services.db
    .selectFrom("turns")
    .innerJoin("members", "members.id", "turns.stopped_by")
    .select("members.salutation")
    .where("turns.id", "=", turnId)
    .executeTakeFirst();
  return row?.salutation ?? null;
}
