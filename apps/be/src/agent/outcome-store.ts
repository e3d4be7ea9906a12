/**
 * Records how a turn ended: succeeded (with the session it continued or started and its cost)
 * or failed (with a code and our message), in the turn record and as its terminal event; then
 * releases the live turn once its events are stored.
 */
import { cliFallbackOfTurn, type TurnTranscript } from "@talkide/claude-cli";
import {
  endSession,
  engineDb,
  finishRun,
  openSession,
  recordSuccess,
  sessionCacheReuseOf,
  startSession,
  type EngineDb,
  type RunFigures,
  type RunTotals,
  type TurnOutcome,
} from "@talkide/turn-engine";
import type { CliFallback, ExactTokenUsage } from "@talkide/be-api";
import { sql } from "kysely";
import { cacheMissView, type StoredCacheMiss, type TurnRow } from "../domain/turns.ts";
import { projectKey } from "./project-key.ts";
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
        // Aborted because the service stops: a failure of the turn, an interruption of its run.
        interrupted: classified.kind === "interrupted",
        ...(refusal === null ? {} : { usageLimit: refusal }),
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
    cacheMiss: cacheMissOf(figures),
  });
  await releaseTurn(services, turn.id, live);
}

/** A turn's exact figures, from the gateway's rows of its requests. */
interface ExactFigures {
  /** USD; 0 when the turn sent no request (nothing reached the provider). */
  readonly costUsd: number;
  /** Null when the turn sent no request. */
  readonly usage: ExactTokenUsage | null;
  /** The requests the gateway forwarded; null when the turn sent none. */
  readonly requests: number | null;
  /** The gateway's explanation of the first request's cache miss, and the backend's phrase. */
  readonly cacheMiss: StoredCacheMiss | null;
  readonly cacheMissPhrase: string | null;
}

async function exactFigures(
  services: TurnServices,
  turnId: string,
  changedSections: readonly string[] = [],
): Promise<ExactFigures> {
  const exact = await services.gateway.turnUsage(turnId);
  if (exact === null)
    return { costUsd: 0, usage: null, requests: null, cacheMiss: null, cacheMissPhrase: null };
  return {
    costUsd: exact.costUsd,
    requests: exact.requests,
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
            position: exact.miss.position,
            gapMs: exact.miss.gapMs,
            ttlMs: exact.miss.ttlMs,
          },
    cacheMissPhrase:
      exact.miss === null
        ? null
        : writtenBecause(exact.miss.reason, exact.missPhrase, changedSections),
  };
}

/** The turn's cache line as its events show it. */
function cacheMissOf(figures: ExactFigures) {
  return figures.cacheMiss === null
    ? null
    : cacheMissView(figures.cacheMiss, figures.cacheMissPhrase);
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

/** The turn's exact figures as its run stores them (the gateway's, when it sent a request). */
function runFigures(figures: ExactFigures): RunFigures {
  const { usage } = figures;
  return {
    costUsd: figures.costUsd,
    usage,
    source: usage === null ? null : "gateway",
    requests: figures.requests,
    cacheWrite5mTokens: usage?.cacheCreation5mInputTokens ?? null,
    cacheWrite1hTokens: usage?.cacheCreation1hInputTokens ?? null,
    cacheMiss: figures.cacheMiss,
    cacheMissPhrase: figures.cacheMissPhrase,
  };
}

/**
 * A turn that did not succeed: the turn record says so (with what members are told) and the
 * engine ends its run with the same code and message, its figures, and what it cost charged
 * to the session it ran in (none: nothing is charged), in one transaction.
 */
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
    /** Aborted because the service stops (the run's outcome `interrupted`). */
    readonly interrupted?: boolean;
    /** The limit the gateway refused one of the turn's requests over. */
    readonly usageLimit?: unknown;
  } = {},
): Promise<void> {
  const figures = ran.figures ?? (await exactFigures(services, turn.id));
  const session = ran.resumedFrom ?? null;
  const ended = await services.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("turns")
      .set({
        ...unrecorded,
        status: "failed",
        error_code: code,
        error_message: message,
        demo_model: services.demoModel,
        // A turn started by its own message may fail before its process record marked it started.
        started_at: sql<string>`COALESCE(started_at, clock_timestamp())`,
        finished_at: sql<string>`clock_timestamp()`,
      })
      .where("id", "=", turn.id)
      .execute();
    return finishRun(engineDb(trx), {
      turnId: turn.id,
      owner: projectKey(turn.project_id),
      outcome: ran.interrupted === true ? "interrupted" : "failed",
      failure: { code, message },
      sessionId: session?.id ?? null,
      claudeSessionId,
      figures: runFigures(figures),
      ...(ran.usageLimit === undefined ? {} : { usageLimit: ran.usageLimit }),
    });
  });
  services.logger.warn({ turnId: turn.id, code }, "turn failed");
  live.emit("turn.failed", {
    turnId: turn.id,
    code,
    message,
    sessionId: claudeSessionId,
    costUsd: figures.costUsd,
    demoModel: services.demoModel,
    usage: figures.usage,
    cumulativeCostUsd: ended.cumulativeCostUsd,
    cacheMiss: cacheMissOf(figures),
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
  readonly figures: ExactFigures;
  /** The CLI's fallback during the turn that makes the session's later requests heavier. */
  readonly cliFallback: CliFallback | null;
}

/** The session's cache reuse and cost so far, this turn included. */
interface SessionTotals {
  readonly sessionCacheReuse: number | null;
  readonly sessionCostUsd: number | null;
}

function totalsOf(run: RunTotals | null): SessionTotals {
  return run === null
    ? { sessionCacheReuse: null, sessionCostUsd: null }
    : {
        sessionCacheReuse: sessionCacheReuseOf({
          session_input_tokens: run.sessionInputTokens,
          session_cache_read_tokens: run.sessionCacheReadTokens,
        }),
        sessionCostUsd: run.cumulativeCostUsd,
      };
}

/**
 * A successful turn: the session continued (or started: a new conversation, pinned to the
 * current release), advanced to the turn's point and charged its cost, its transcript stored
 * (the engine appends just the lines the CLI added when it can), its run ended with its figures
 * and the session's totals, and the turn's record as the step beside, in the engine's one
 * statement (`recordSuccess` with `run`, and `alongside`). A turn that starts a session starts
 * it in the same transaction.
 */
async function storeSucceeded(
  services: TurnServices,
  turn: TurnRow,
  resumedFrom: SessionRow | undefined,
  transcript: TurnTranscript | null,
  outcome: SucceededOutcome,
): Promise<SessionTotals> {
  const { db } = services;
  const store = async (engine: EngineDb, session: SessionRow) => {
    const recorded = await recordSuccess(
      engine,
      db,
      {
        sessionId: session.id,
        turnId: turn.id,
        // A resume continues the conversation (Claude Code may announce a new id for it).
        point: { id: outcome.sessionId, at: outcome.lastMessageId },
        costUsd: outcome.figures.costUsd,
        transcript,
        run: { figures: runFigures(outcome.figures), cliFallback: outcome.cliFallback },
      },
      {
        steps: (when) =>
          sql`finished_turn AS (${db
            .updateTable("turns")
            .set({
              status: "succeeded",
              result_text: outcome.resultText,
              demo_model: services.demoModel,
              finished_at: sql<string>`clock_timestamp()`,
            })
            .where("id", "=", turn.id)
            .where(sql<boolean>`TRUE ${when}`)})`,
      },
    );
    return recorded.run;
  };
  const recorded =
    resumedFrom === undefined
      ? await db.transaction().execute(async (trx) => {
          const engine = engineDb(trx);
          return store(engine, await startProjectSession(services, engine, turn.project_id));
        })
      : await store(engineDb(db), resumedFrom);
  return totalsOf(recorded);
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
        demo_model: services.demoModel,
        started_at: sql<string>`COALESCE(started_at, clock_timestamp())`,
        finished_at: sql<string>`clock_timestamp()`,
      })
      .where("id", "=", turn.id)
      .execute();
    await finishRun(engineDb(trx), {
      turnId: turn.id,
      owner: projectKey(turn.project_id),
      outcome: "stopped",
      failure: null,
      sessionId: ranIn?.id ?? null,
      figures: runFigures(figures),
    });
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
