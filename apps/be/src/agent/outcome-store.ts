/**
 * Records how a turn ended: succeeded (with the session it continued or started and its cost)
 * or failed (with a code and our message), in the turn record and as its terminal event; then
 * releases the live turn once its events are stored.
 */
import {
  allInputTokens,
  cliFallbackOfTurn,
  type TokenUsage,
  type TurnTranscript,
} from "@talkide/claude-cli";
import {
  chargeSession,
  endSession,
  engineDb,
  openSession,
  recordSuccess,
  sessionTotalAfter,
  sessionCacheReuseOf,
  startSession,
  type EngineDb,
  type TurnOutcome,
} from "@talkide/turn-engine";
import type { CliFallback, ExactTokenUsage } from "@talkide/be-api";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { CacheMissColumn, DatabaseSchema } from "../db/schema.ts";
import { cacheMissView, type TurnRow } from "../domain/turns.ts";
import { projectScope, releasePin, type SessionRow } from "./session-pinning.ts";
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
  transcript: TurnTranscript | null,
  /** What changed in our instruction files before the turn, in a member's words. */
  changedSections: readonly string[] = [],
): Promise<void> {
  const { logger } = services;
  // What the turn cost and used is what the gateway saw of its requests, exactly.
  const figures = await exactFigures(services, turn.id, changedSections);
  if (classified.kind !== "succeeded") {
    const { result } = classified;
    // A request refused over a limit is the turn's failure, in the gateway's words.
    const refusal = await services.gateway.refusalOf(turn.id);
    const error =
      refusal === null
        ? classified.error
        : { code: "usage_limit_reached", message: refusal.message };
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
      result.sessionId,
      {},
      {
        figures,
        resumedFrom: resumedFrom ?? null,
      },
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
    figures,
    // Recorded, and the session continues: see "A gateway that refuses deferred tools" in the
    // README (a new session would pay a whole prefix write and meet the same refusal).
    cliFallback: cliFallbackOfTurn(
      transcript,
      turn.started_at === null ? null : Date.parse(turn.started_at),
    ),
  };
  const totals = await storeSucceeded(services, turn, resumedFrom, transcript, outcome);
  // `demoModel: true` beside the cost: the local demo model's costs are not real money. At
  // debug, as every per-turn line: the terminal of `npm start` keeps its sign-in lines in view
  // (TALKIDE_LOG_LEVEL=debug shows them).
  logger.debug(
    {
      turnId: turn.id,
      costUsd: figures.costUsd,
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
    costUsd: figures.costUsd,
    cumulativeCostUsd: totals.sessionCostUsd,
    demoModel: services.demoModel,
    usage: figures.usage,
    sessionCacheReuse: totals.sessionCacheReuse,
    cliFallback: outcome.cliFallback,
    cacheMiss: figures.cacheMiss === null ? null : cacheMissView(figures.cacheMiss),
  });
  await releaseTurn(services, turn.id, live);
}

/** A turn's exact figures, from the gateway's rows of its requests. */
export interface ExactFigures {
  /** USD; 0 when the turn sent no request (nothing reached the provider). */
  readonly costUsd: number;
  /** Null when the turn sent no request. */
  readonly usage: ExactTokenUsage | null;
  readonly cacheMiss: CacheMissColumn | null;
}

async function exactFigures(
  services: TurnServices,
  turnId: string,
  changedSections: readonly string[] = [],
): Promise<ExactFigures> {
  const exact = await services.gateway.turnUsage(turnId);
  if (exact === null) return { costUsd: 0, usage: null, cacheMiss: null };
  return {
    costUsd: exact.costUsd,
    usage: {
      inputTokens: exact.inputTokens,
      cacheCreationInputTokens: exact.cacheWrite5mTokens + exact.cacheWrite1hTokens,
      cacheReadInputTokens: exact.cacheReadTokens,
      outputTokens: exact.outputTokens,
      cacheCreation5mInputTokens: exact.cacheWrite5mTokens,
      cacheCreation1hInputTokens: exact.cacheWrite1hTokens,
    },
    cacheMiss:
      exact.miss === null
        ? null
        : {
            reason: exact.miss.reason,
            phrase: writtenBecause(exact.miss.reason, exact.missPhrase, changedSections),
            position: exact.miss.position,
            gapMs: exact.miss.gapMs,
            ttlMs: exact.miss.ttlMs,
          },
  };
}

/**
 * The phrase of a turn's cache line. A resumed turn whose context changed kept the cache
 * (`prefix_kept`: Claude Code appends the changed files in a reminder), so the gateway has no
 * miss to name; what the turn wrote then is the new message and that reminder, and the
 * changed sections say why ("the active writer changed, the roster section changed").
 */
function writtenBecause(
  reason: string,
  missPhrase: string | null,
  changedSections: readonly string[],
): string | null {
  if (reason !== "prefix_kept" || changedSections.length === 0) return missPhrase;
  return changedSections.join(", ");
}

/** The turn record's columns of its exact figures. */
function figureColumns(figures: ExactFigures) {
  const { usage } = figures;
  return {
    cost_usd: figures.costUsd,
    input_tokens: usage?.inputTokens ?? null,
    cache_creation_input_tokens: usage?.cacheCreationInputTokens ?? null,
    cache_read_input_tokens: usage?.cacheReadInputTokens ?? null,
    output_tokens: usage?.outputTokens ?? null,
    cache_write_5m_tokens: usage?.cacheCreation5mInputTokens ?? null,
    cache_write_1h_tokens: usage?.cacheCreation1hInputTokens ?? null,
    cache_miss: figures.cacheMiss === null ? null : JSON.stringify(figures.cacheMiss),
  };
}

/**
 * Charges what a turn that did not succeed cost to the session it ran in (null: none), in the
 * turn's transaction; returns the session's total after it (the turn's `cumulative_cost_usd`).
 */
async function chargeTurn(
  trx: Kysely<DatabaseSchema>,
  session: SessionRow | null,
  costUsd: number,
): Promise<number | null> {
  return session === null ? null : chargeSession(engineDb(trx), session.id, costUsd);
}

export async function failTurn(
  services: TurnServices,
  turn: TurnRow,
  live: LiveTurn,
  code: string,
  message: string,
  /** The session the CLI reported for this turn, even though the turn failed. */
  claudeSessionId: string | null,
  /** Further fields of the turn record the failed turn had not stored yet. */
  unrecorded: { readonly workspace_instruction_files?: string } = {},
  ran: {
    /** The turn's exact figures (read from the gateway when not given). */
    readonly figures?: ExactFigures;
    /** The session the turn ran in: what it cost counts in that session's total. */
    readonly resumedFrom?: SessionRow | null;
  } = {},
): Promise<void> {
  const figures = ran.figures ?? (await exactFigures(services, turn.id));
  const session = ran.resumedFrom ?? null;
  const recorded = await services.db.transaction().execute(async (trx) =>
    trx
      .updateTable("turns")
      .set({
        ...unrecorded,
        status: "failed",
        claude_session_id: claudeSessionId,
        error_code: code,
        error_message: message,
        ...figureColumns(figures),
        ...(session === null ? {} : { agent_session_id: session.id }),
        cumulative_cost_usd: await chargeTurn(trx, session, figures.costUsd),
        demo_model: services.demoModel,
        // A turn started by its own message may fail before its process record marked it started.
        started_at: sql<string>`COALESCE(started_at, clock_timestamp())`,
        finished_at: sql<string>`clock_timestamp()`,
      })
      .where("id", "=", turn.id)
      .returning("cumulative_cost_usd")
      .executeTakeFirst(),
  );
  services.logger.warn({ turnId: turn.id, code }, "turn failed");
  live.emit("turn.failed", {
    turnId: turn.id,
    code,
    message,
    sessionId: claudeSessionId,
    costUsd: figures.costUsd,
    demoModel: services.demoModel,
    usage: figures.usage,
    cumulativeCostUsd: recorded?.cumulative_cost_usd ?? null,
    cacheMiss: figures.cacheMiss === null ? null : cacheMissView(figures.cacheMiss),
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
                  WHERE p.project_id = ${projectId} AND p.agent_session_id = ${sessionId}
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
  readonly figures: ExactFigures;
  /** The CLI's fallback during the turn that makes the session's later requests heavier. */
  readonly cliFallback: CliFallback | null;
}

/** What a turn's record says of its session so far. */
type SessionTotalsRow = Pick<
  TurnRow,
  "session_input_tokens" | "session_cache_read_tokens" | "cumulative_cost_usd"
>;

/** The session's cache reuse and cost so far, this turn included. */
interface SessionTotals {
  readonly sessionCacheReuse: number | null;
  readonly sessionCostUsd: number | null;
}

function totalsOf(row: SessionTotalsRow | undefined): SessionTotals {
  return row === undefined
    ? { sessionCacheReuse: null, sessionCostUsd: null }
    : {
        sessionCacheReuse: sessionCacheReuseOf(row),
        sessionCostUsd: row.cumulative_cost_usd,
      };
}

/**
 * A successful turn: the session continued (or started: a new conversation, pinned to the
 * current release), advanced to the turn's point and charged its cost, its transcript stored
 * (the engine appends just the lines the CLI added when it can), and the turn's record with the
 * session's totals, in the engine's one statement with the turn's record as its step beside
 * (`recordSuccess`'s `alongside`). A turn that starts a session starts it in the same
 * transaction.
 */
async function storeSucceeded(
  services: TurnServices,
  turn: TurnRow,
  resumedFrom: SessionRow | undefined,
  transcript: TurnTranscript | null,
  outcome: SucceededOutcome,
): Promise<SessionTotals> {
  const { db } = services;
  const { costUsd, usage } = outcome.figures;
  const store = async (engine: EngineDb, session: SessionRow) => {
    const totals = sessionTotals(turn.project_id, session.id, turn.id, usage);
    const recorded = await recordSuccess(
      engine,
      db,
      {
        sessionId: session.id,
        turnId: turn.id,
        // A resume continues the conversation (Claude Code may announce a new id for it).
        point: { id: outcome.sessionId, at: outcome.lastMessageId },
        costUsd,
        transcript,
      },
      {
        steps: (when) =>
          sql`finished_turn AS (${db
            .updateTable("turns")
            .set({
              status: "succeeded",
              agent_session_id: session.id,
              claude_session_id: outcome.sessionId,
              resumed: resumedFrom !== undefined,
              result_text: outcome.resultText,
              ...figureColumns(outcome.figures),
              // The session's total with this turn, as the engine's step sets it.
              cumulative_cost_usd: sessionTotalAfter(session.id, costUsd),
              session_input_tokens: totals.input,
              session_cache_read_tokens: totals.cacheRead,
              cli_fallback: outcome.cliFallback,
              demo_model: services.demoModel,
              finished_at: sql<string>`clock_timestamp()`,
            })
            .where("id", "=", turn.id)
            .where(sql<boolean>`TRUE ${when}`)
            .returning([
              "session_input_tokens",
              "session_cache_read_tokens",
              "cumulative_cost_usd",
            ])})`,
        result: sql`(SELECT to_jsonb(t) FROM finished_turn t)`,
      },
    );
    return recorded.host as SessionTotalsRow | null;
  };
  const recorded =
    resumedFrom === undefined
      ? await db.transaction().execute(async (trx) => {
          const engine = engineDb(trx);
          return store(engine, await startProjectSession(services, engine, turn.project_id));
        })
      : await store(engineDb(db), resumedFrom);
  return totalsOf(recorded ?? undefined);
}

/** A new session of the project, pinned to the current release; one left open is ended. */
async function startProjectSession(
  services: TurnServices,
  engine: EngineDb,
  projectId: number,
): Promise<SessionRow> {
  const scope = projectScope(projectId);
  const open = await openSession(engine, scope.scope);
  if (open !== null) await endSession(engine, open.id, "ended");
  return startSession(engine, scope, releasePin(services.claude.pinned));
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
  /** The session the turn ran in, when known: what it cost counts in that session's total. */
  ranIn: SessionRow | null = null,
): Promise<void> {
  const answered = live.events.flatMap((event) =>
    event.type === "agent.text" && !("unrecognized" in event) ? [event.data.text] : [],
  );
  const resultText = answered.length === 0 ? null : answered.join("\n\n");
  // What it spent before the stop was spent all the same.
  const figures = await exactFigures(services, turn.id);
  await services.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("turns")
      .set({
        status: "stopped",
        result_text: resultText,
        ...figureColumns(figures),
        ...(ranIn === null
          ? {}
          : {
              agent_session_id: ranIn.id,
              cumulative_cost_usd: await chargeTurn(trx, ranIn, figures.costUsd),
            }),
        demo_model: services.demoModel,
        started_at: sql<string>`COALESCE(started_at, clock_timestamp())`,
        finished_at: sql<string>`clock_timestamp()`,
      })
      .where("id", "=", turn.id)
      .execute();
  });
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
