import type {
  ClaudeTurnResult,
  OrphanWatchdog,
  SessionPoint,
  TurnTranscript,
  WarmProcessPool,
} from "@talkide/claude-cli";
import { beside, type Stage, type TurnEvents } from "./beside.ts";
import { keepOrRetire, takeProcess, type ColdStart, type TakenProcess } from "./process.ts";
import { chooseSession, pinnedTo } from "./session-choice.ts";
import {
  openSession,
  pointOfSession,
  type EngineDb,
  type SessionRow,
} from "./store/session-store.ts";
import { materialiseTranscript, transcriptAfterTurn } from "./transcripts.ts";
import { TurnFailure } from "./turn-failure.ts";
import { classifyTurnOutcome, type TurnOutcome } from "./turn-outcome.ts";
import { guardWorkspace, type GuardedWorkspace } from "./workspace-guard.ts";

/**
 * One turn from a claimed job to a stored outcome, once for both hosts. The stages, in order:
 *
 *  1. opening, side by side: `session` (the open session of the host's scope, from the
 *     engine's tables) and `context` (what the host renders for it); then `guard` (contract
 *     section 6: nothing is started in a workspace that is not isolated) and `choose`
 *     (`chooseSession`: a session resumes only from its last successful turn; one that has not
 *     begun starts the CLI afresh; a begun one pinned to another release or standing prompt
 *     than the host's is ended: the turn starts a new one);
 *  2. an attempt: `take` the session's kept process or start one (the stored transcript on
 *     disk before a cold resume; beside it, what the attempt prepares alongside), `record` the process (before the message is sent, or beside
 *     the run for a host whose orphan watchdog covers it until the record commits), `run` the
 *     message with the host's reports beside it, `classify` the outcome;
 *  3. an unknown session (a cold resume the CLI could not continue: nothing reached the model)
 *     ends the session and runs a second attempt, once, in a new one;
 *  4. `finish`: the host stores the outcome (a success with the transcript the CLI left; a
 *     turn aborted while the host stops is `interrupted`: the host puts the work back), then
 *     the process is kept for the session's next turn or retired. A stage that throws ends the
 *     turn too (`finish` with the error).
 */
export async function runTurnPipeline<E, C extends TurnContext, A extends TurnAttempt<E>>(
  host: TurnPipelineHost<E, C, A>,
  signal: AbortSignal,
): Promise<void> {
  const { events } = host;
  // What the turn's clients learn first is how its process started (`announce`): what the
  // opening stages report waits until then, in stage order. Without it, events go as they happen.
  const opening =
    host.announce === undefined
      ? null
      : { session: events.hold(), context: events.hold(), guard: events.hold() };
  const progress: TurnProgress = { session: null, instructionFiles: null, announced: false };
  const announce = (taken: TakenProcess | null): void => {
    if (progress.announced) return;
    progress.announced = true;
    host.announce?.(taken, progress.session);
    if (opening === null) return;
    opening.session.releaseTo(events.live);
    // What the context stage reported stands for a workspace the guard let through: for one
    // it refused (or a context that failed), the turn's failure is what its clients hear.
    if (progress.instructionFiles === null) return;
    opening.context.releaseTo(events.live);
    opening.guard.releaseTo(events.live);
  };
  // The process the turn holds, retired should a stage throw.
  const holding: { taken: { attempt: A; process: TakenProcess; digest: string } | null } = {
    taken: null,
  };
  try {
    const opened = await beside(events, {
      session: async () => {
        const session = await openSession(host.db, host.session.scope);
        // A session that has not begun is not one the turn continues.
        progress.session = session !== null && pointOfSession(session) !== null ? session : null;
        return session;
      },
      context: (to: E) => host.prepareContext(opening?.context ?? to),
    });
    const { context } = opened;
    const instructionFiles = await guardStage(host, context, opening?.guard ?? events.live);
    progress.instructionFiles = instructionFiles;
    const chosen = await chooseStage(host, opened.session, opening?.session ?? events.live);
    progress.session = chosen.point === null ? null : chosen.session;

    for (const round of [1, 2] as const) {
      // The second round (after an unknown session) starts a new session.
      const { session, point } = round === 1 ? chosen : { session: null, point: null };
      const attempt = await host.beginAttempt(session, point, context, instructionFiles);
      const digest = await attempt.digest();
      const { take: process } = await beside(events, {
        take: async () => {
          const taken = await takeProcess(host.pool, {
            key: attempt.key,
            point,
            digest,
            turnId: attempt.turnId,
            cold: attempt.cold,
            beforeColdStart: attempt.beforeColdStart,
            beforeColdResume: async () => {
              if (attempt.sessionKey === null) return;
              await materialiseTranscript(host.db, context.claudeConfigDir, attempt.sessionKey);
            },
          });
          holding.taken = { attempt, process: taken, digest };
          return taken;
        },
        ...(attempt.whileTaking === undefined ? {} : { alongside: attempt.whileTaking }),
      });
      announce(process);
      const result = await runStage(host, attempt, process, round, signal);
      const outcome = classifyTurnOutcome(result, {
        previousCumulativeCostUsd: attempt.previousCumulativeCostUsd,
        resumedCold: point !== null && process.kind === "cold",
        stopping: signal.aborted,
      });
      if (outcome.kind === "unknown_session" && round === 1 && session !== null) {
        // Its process has failed: it ends before the fresh one starts.
        keepOrRetire(host.pool, attempt.key, process, { ok: false }, digest);
        holding.taken = null;
        await host.endSession(
          session,
          { reason: "unknown_session", attempt, outcome },
          events.live,
        );
        continue;
      }
      const transcript =
        outcome.kind === "succeeded"
          ? await transcriptAfterTurn(
              host.db,
              context.claudeConfigDir,
              attempt.sessionKey,
              outcome.result.sessionId,
            )
          : null;
      await host.finish({ kind: "outcome", attempt, outcome, transcript });
      // The kept process stands for what it read when it started: `digest`. Whatever changes
      // on disk later (an instruction file the agent wrote) makes the next turn's digest differ.
      keepOrRetire(host.pool, attempt.key, process, outcome.result, digest);
      return;
    }
  } catch (error) {
    const { taken } = holding;
    if (taken !== null)
      keepOrRetire(host.pool, taken.attempt.key, taken.process, { ok: false }, taken.digest);
    announce(null);
    await host.finish({ kind: "error", error, progress });
  }
}

/** The workspace guard on the context's workspace; a refusal fails the turn (`TurnFailure`). */
async function guardStage<E, C extends TurnContext, A extends TurnAttempt<E>>(
  host: TurnPipelineHost<E, C, A>,
  context: C,
  to: E,
): Promise<readonly string[]> {
  const guarded = await guardWorkspace({
    workspaceDir: context.workspaceDir,
    claudeConfigDir: context.claudeConfigDir,
    ...(context.ours === undefined ? {} : { ours: context.ours }),
    ...(context.inspected === undefined ? {} : { inspected: context.inspected }),
    ...(context.quarantineDir === undefined ? {} : { quarantineDir: context.quarantineDir }),
  });
  host.workspaceGuarded(guarded, to);
  if (!guarded.ok) throw new TurnFailure(guarded.code, guarded.message);
  return guarded.instructionFiles;
}

/**
 * The session the turn runs in and the point it resumes at (`chooseSession`): the open one at
 * its point when it is pinned to what the host runs now (`host.session.pin`; a session of
 * unknown pin never is); the open one afresh (no point) when it has not begun; else none: a
 * begun session pinned elsewhere is ended (visibly, by the host) and the turn starts a new one.
 */
async function chooseStage<E, C extends TurnContext, A extends TurnAttempt<E>>(
  host: TurnPipelineHost<E, C, A>,
  session: SessionRow | null,
  to: E,
): Promise<{ readonly session: SessionRow | null; readonly point: SessionPoint | null }> {
  const choice = chooseSession(session, pinnedTo(host.session.pin));
  switch (choice.kind) {
    case "new":
      return { session: null, point: null };
    case "begin":
      return { session: choice.session, point: null };
    case "end":
      await host.endSession(choice.session, { reason: "pinned_elsewhere" }, to);
      return { session: null, point: null };
    case "continue":
      return { session: choice.session, point: choice.point };
  }
}

/**
 * The message to the process, and what the host does while the CLI works: the process record
 * before the message or beside it, and the host's reports (the first attempt only), whose
 * events come before the agent's. A kept process carries the marker of the turn that started
 * it: the turn's own id is tracked by the orphan watchdog for as long as it runs.
 */
async function runStage<E, C extends TurnContext, A extends TurnAttempt<E>>(
  host: TurnPipelineHost<E, C, A>,
  attempt: A,
  taken: TakenProcess,
  round: 1 | 2,
  signal: AbortSignal,
): Promise<ClaudeTurnResult> {
  const ownMarker = taken.marker === attempt.turnId ? undefined : attempt.watchdog;
  ownMarker?.track(attempt.turnId);
  // The process's requests count for this turn (and its member) while it runs.
  taken.credential?.attach({
    turnId: attempt.turnId,
    userKey: attempt.userKey ?? null,
    sessionKey: attempt.sessionKey,
  });
  try {
    const record: Stage<E, void> = () => host.recordProcess(attempt, taken);
    if (attempt.recordsWhileRunning !== true) await record(host.events.live);
    const report = round === 1 ? attempt.whileRunning : undefined;
    const stages = await beside(
      host.events,
      {
        run: (to: E) => host.sendMessage(attempt, taken, to, signal),
        ...(attempt.recordsWhileRunning === true ? { record } : {}),
        ...(report === undefined ? {} : { report }),
      },
      ["report", "run"],
    );
    return stages.run;
  } finally {
    taken.credential?.detach();
    ownMarker?.untrack(attempt.turnId);
  }
}

/** How far the turn came, for the host's failure record. */
export interface TurnProgress {
  /** The session the turn continues, as far as known (not one that has not begun). */
  session: SessionRow | null;
  /** What the workspace guard found; null when the turn failed before it passed. */
  instructionFiles: readonly string[] | null;
  announced: boolean;
}

/** What the host's context stage prepared: where the CLI runs. */
export interface TurnContext {
  readonly workspaceDir: string;
  /** The CLI's `CLAUDE_CONFIG_DIR`: where transcripts are read and written. */
  readonly claudeConfigDir: string;
  /** Files of the workspace the host writes itself: not reported as instruction files. */
  readonly ours?: readonly string[] | undefined;
  /** `inspectWorkspace` of the workspace, when the host started it early (side by side). */
  readonly inspected?: Promise<readonly string[]> | undefined;
  /**
   * Where instruction files found in the workspace are moved before the spawn (outside every
   * workspace); unset: they stay and the CLI loads them (reported only).
   */
  readonly quarantineDir?: string | undefined;
}

/** One run of the turn's message in a session: the first, or the one after an unknown session. */
export interface TurnAttempt<E = never> {
  /** The id a process started for this attempt carries as its marker. */
  readonly turnId: string;
  /** The session's key in the warm pool. */
  readonly key: string;
  /** The host's session, for its stored transcript (null: the attempt starts a new one). */
  readonly sessionKey: string | null;
  /** The continued session's cumulative cost before this turn (null: a new session). */
  readonly previousCumulativeCostUsd: number | null;
  /** Whom the turn is for: the process credential's requests count for them while it runs. */
  readonly userKey?: string | null | undefined;
  /** How a new process is started. */
  readonly cold: ColdStart;
  /** What a process reads when it starts besides the session (`warmContextDigest`). */
  digest(): Promise<string>;
  /** Runs beside taking the process, done before it is recorded (the daemon's turn env file). */
  readonly whileTaking?: (() => Promise<void>) | undefined;
  /**
   * Reports made while the CLI works (the first attempt only), beside the run: their events
   * come before the agent's.
   */
  readonly whileRunning?: ((events: E) => Promise<void>) | undefined;
  /**
   * The process record is written beside the run instead of before the message (a host whose
   * orphan watchdog covers the process until the record commits).
   */
  readonly recordsWhileRunning?: boolean | undefined;
  /** Before anything is started for a cold attempt (the daemon stores the turn's row). */
  readonly beforeColdStart?: (() => Promise<void>) | undefined;
  /** Tracks the attempt's own id while a kept process started by another turn runs it. */
  readonly watchdog?: OrphanWatchdog | undefined;
}

/**
 * Why the pipeline ends a session: pinned to another release or standing prompt than the
 * host's (before the turn), or unknown to the CLI (after the first attempt, whose outcome the
 * host may record; the second attempt starts a new session).
 */
export type SessionEnd<A> =
  | { readonly reason: "pinned_elsewhere" }
  | { readonly reason: "unknown_session"; readonly attempt: A; readonly outcome: TurnOutcome };

/** How a turn ended: an attempt's outcome (any kind but a first unknown session), or an error. */
export type TurnEnd<A> =
  | {
      readonly kind: "outcome";
      readonly attempt: A;
      readonly outcome: TurnOutcome;
      /** What the CLI left, for a success (null otherwise, or when it left none). */
      readonly transcript: TurnTranscript | null;
    }
  | {
      readonly kind: "error";
      /** A `TurnFailure` (a refusal), or anything unexpected a stage threw. */
      readonly error: unknown;
      readonly progress: Readonly<TurnProgress>;
    };

/**
 * What an app implements to run its turns on the pipeline: the data (the pool, the engine's
 * tables in its database, the session's scope and what it runs now) and the steps that are its
 * own (rendering the context, the process record, sending the message, storing how the turn
 * ended), with its events (`E`).
 */
export interface TurnPipelineHost<E, C extends TurnContext, A extends TurnAttempt<E>> {
  readonly pool: WarmProcessPool;
  /**
   * The engine's tables in the host's database (`engineDb`). The same object owns the
   * transcript ledger: the host passes it as `recordSuccess`'s `ledgerOwner`.
   */
  readonly db: EngineDb;
  readonly events: TurnEvents<E>;
  /** Which session the turn continues, and what a session must be pinned to to continue. */
  readonly session: { readonly scope: string; readonly pin: string | null };

  /** Stage `context`: renders what the CLI reads; a `TurnFailure` fails the turn. */
  prepareContext(events: E): Promise<C>;
  /** What the guard found: the host logs and reports it (a refusal fails the turn after). */
  workspaceGuarded(guarded: GuardedWorkspace, events: E): void;
  /** Ends the session (in the engine's tables, with the host's own record of it), visibly. */
  endSession(session: SessionRow, end: SessionEnd<A>, events: E): Promise<void>;
  /**
   * The turn's first event, once its process is taken (null: the turn failed before): what the
   * opening reported follows it. A host without it hears the opening's events as they happen.
   */
  announce?(taken: TakenProcess | null, session: SessionRow | null): void;

  /**
   * An attempt in `session` (null: a new session), resumed at `point` (the pipeline's choice,
   * `chooseSession`; null: the CLI starts afresh, in `session` when it has not begun). A host
   * that keeps a session before it began pins it to what it runs now here.
   */
  beginAttempt(
    session: SessionRow | null,
    point: SessionPoint | null,
    context: C,
    instructionFiles: readonly string[],
  ): Promise<A>;
  /** Stores how the attempt's process started and its marker. */
  recordProcess(attempt: A, taken: TakenProcess): Promise<void>;
  /** Sends the message to the process and runs it to its result; the agent's events to `events`. */
  sendMessage(
    attempt: A,
    taken: TakenProcess,
    events: E,
    signal: AbortSignal,
  ): Promise<ClaudeTurnResult>;
  /**
   * Stores how the turn ended: a success (with the transcript, `recordSuccess`), a failure, an
   * interruption (the host stops: it puts the work back, or fails it), or a stage's error.
   */
  finish(end: TurnEnd<A>): Promise<void>;
}
