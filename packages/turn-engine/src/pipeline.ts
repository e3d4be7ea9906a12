import type {
  ClaudeTurnResult,
  OrphanWatchdog,
  RuntimeTranscript,
  SessionPoint,
  WarmProcessPool,
} from "@talkide/claude-cli";
import { beside, type Stage, type TurnEvents } from "./beside.ts";
import { keepOrRetire, takeProcess, type ColdStart, type TakenProcess } from "./process.ts";
import { chooseSession } from "./session-choice.ts";
import { materialiseTranscript, transcriptAfterTurn } from "./transcripts.ts";
import { TurnFailure } from "./turn-failure.ts";
import { classifyTurnOutcome, type TurnOutcome } from "./turn-outcome.ts";
import { guardWorkspace, type GuardedWorkspace } from "./workspace-guard.ts";

/**
 * One turn from a claimed job to a stored outcome, once for both hosts. The stages, in order:
 *
 *  1. opening, side by side: `session` (the session the turn would continue) and `context`
 *     (what the host renders for it); then `guard` (contract section 6: nothing is started in
 *     a workspace that is not isolated) and `choose` (`chooseSession`: a session resumes only
 *     from its last successful turn; one that has not begun starts the CLI afresh; a begun
 *     one pinned to another release or standing prompt is ended: the turn starts a new one);
 *  2. an attempt: `take` the session's kept process or start one (the stored transcript on
 *     disk before a cold resume; beside it, what the attempt prepares alongside), `record` the process (before the message is sent, or beside
 *     the run for a host whose orphan watchdog covers it until the record commits), `run` the
 *     message with the host's reports beside it, `classify` the outcome;
 *  3. an unknown session (a cold resume the CLI could not continue: nothing reached the model)
 *     ends the session and runs a second attempt, once, in a new one;
 *  4. `store` the outcome (a success with the transcript the CLI left), then keep the process
 *     for the session's next turn or retire it. A turn aborted while the host stops is handed
 *     back (`interrupted`); a stage that throws fails the turn (`failed`).
 */
export async function runTurnPipeline<E, S, C extends TurnContext, A extends TurnAttempt>(
  host: TurnPipelineHost<E, S, C, A>,
  signal: AbortSignal,
): Promise<void> {
  const { events } = host;
  // What the turn's clients learn first is how its process started (`announce`): what the
  // opening stages report waits until then, in stage order. Without it, events go as they happen.
  const opening =
    host.announce === undefined
      ? null
      : { session: events.hold(), context: events.hold(), guard: events.hold() };
  const progress: TurnProgress<S> = { session: null, instructionFiles: null, announced: false };
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
      session: async (to: E) => {
        const session = await host.openSession(opening?.session ?? to);
        // A session that has not begun is not one the turn continues.
        progress.session = session !== null && host.pointOf(session) !== null ? session : null;
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
              await materialiseTranscript(host, host.claudeConfigDir, attempt.sessionKey);
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
        stopping: host.interrupted !== undefined && signal.aborted,
      });
      if (outcome.kind === "interrupted") {
        keepOrRetire(host.pool, attempt.key, process, { ok: false }, digest);
        holding.taken = null;
        await host.interrupted?.(attempt, outcome);
        return;
      }
      if (outcome.kind === "unknown_session" && round === 1) {
        // Its process has failed: it ends before the fresh one starts.
        keepOrRetire(host.pool, attempt.key, process, { ok: false }, digest);
        holding.taken = null;
        await host.sessionUnknown(attempt, outcome);
        continue;
      }
      const transcript =
        outcome.kind === "succeeded"
          ? await transcriptAfterTurn(
              host.ledgerOwner,
              host.claudeConfigDir,
              attempt.sessionKey,
              outcome.result.sessionId,
            )
          : null;
      await host.storeOutcome(attempt, outcome, transcript);
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
    await host.failed(error, progress);
  }
}

/** The workspace guard on the context's workspace; a refusal fails the turn (`TurnFailure`). */
async function guardStage<E, S, C extends TurnContext, A extends TurnAttempt>(
  host: TurnPipelineHost<E, S, C, A>,
  context: C,
  to: E,
): Promise<readonly string[]> {
  const guarded = await guardWorkspace({
    workspaceDir: context.workspaceDir,
    claudeConfigDir: host.claudeConfigDir,
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
 * its point when it is pinned to what the host runs now; the open one afresh (no point) when it
 * has not begun; else none: a begun session pinned elsewhere is ended (visibly, by the host)
 * and the turn starts a new one.
 */
async function chooseStage<E, S, C extends TurnContext, A extends TurnAttempt>(
  host: TurnPipelineHost<E, S, C, A>,
  session: S | null,
  to: E,
): Promise<{ readonly session: S | null; readonly point: SessionPoint | null }> {
  const choice = chooseSession(session, host);
  switch (choice.kind) {
    case "new":
      return { session: null, point: null };
    case "begin":
      return { session: choice.session, point: null };
    case "end":
      await host.endSession(choice.session, "pinned_elsewhere", to);
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
async function runStage<E, S, C extends TurnContext, A extends TurnAttempt>(
  host: TurnPipelineHost<E, S, C, A>,
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
    if (host.recordsWhileRunning !== true) await record(host.events.live);
    const report = round === 1 ? host.whileRunning?.bind(host) : undefined;
    const stages = await beside(
      host.events,
      {
        run: (to: E) => host.sendMessage(attempt, taken, to, signal),
        ...(host.recordsWhileRunning === true ? { record } : {}),
        ...(report === undefined ? {} : { report: (to: E) => report(attempt, to) }),
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
export interface TurnProgress<S> {
  /** The session the turn continues, as far as known (not one that has not begun). */
  session: S | null;
  /** What the workspace guard found; null when the turn failed before it passed. */
  instructionFiles: readonly string[] | null;
  announced: boolean;
}

/** What the host's context stage prepared: where the CLI runs. */
export interface TurnContext {
  readonly workspaceDir: string;
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
export interface TurnAttempt {
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
  /** Before anything is started for a cold attempt (the daemon stores the turn's row). */
  readonly beforeColdStart?: (() => Promise<void>) | undefined;
  /** Tracks the attempt's own id while a kept process started by another turn runs it. */
  readonly watchdog?: OrphanWatchdog | undefined;
}

/** Why the pipeline ends a session before the turn. */
export type SessionEndReason = "pinned_elsewhere";

/**
 * What an app implements to run its turns on the pipeline: where the session, the process
 * record and the outcome are stored, what context it renders and where events go (`E`).
 */
export interface TurnPipelineHost<E, S, C extends TurnContext, A extends TurnAttempt> {
  readonly pool: WarmProcessPool;
  /** The CLI's `CLAUDE_CONFIG_DIR`: where transcripts are read and written. */
  readonly claudeConfigDir: string;
  /** The host's database object, whose transcript ledger remembers where transcripts were. */
  readonly ledgerOwner: object;
  readonly events: TurnEvents<E>;
  /** The session's stored transcript, for a cold resume; null when none is stored. */
  loadTranscript(sessionKey: string): Promise<RuntimeTranscript | null>;

  /** Stage `session`: the session the turn would continue (null: none is open). */
  openSession(events: E): Promise<S | null>;
  /** Stage `context`: renders what the CLI reads; a `TurnFailure` fails the turn. */
  prepareContext(events: E): Promise<C>;
  /** What the guard found: the host logs and reports it (a refusal fails the turn after). */
  workspaceGuarded(guarded: GuardedWorkspace, events: E): void;
  /**
   * Where the session stands: the CLI's session and the message its last successful turn ended
   * at; null for a session that has not begun (none of its turns succeeded yet).
   */
  pointOf(session: S): SessionPoint | null;
  /** The session is pinned to what the host runs now (agent release, standing prompt). */
  isCurrent(session: S): boolean;
  /** Ends the session before the turn, visibly. */
  endSession(session: S, reason: SessionEndReason, events: E): Promise<void>;
  /**
   * The turn's first event, once its process is taken (null: the turn failed before): what the
   * opening reported follows it. A host without it hears the opening's events as they happen.
   */
  announce?(taken: TakenProcess | null, session: S | null): void;

  /**
   * An attempt in `session` (null: a new session), resumed at `point` (the pipeline's choice,
   * `chooseSession`; null: the CLI starts afresh, in `session` when it has not begun). A host
   * that keeps a session before it began pins it to what it runs now here.
   */
  beginAttempt(
    session: S | null,
    point: SessionPoint | null,
    context: C,
    instructionFiles: readonly string[],
  ): Promise<A>;
  /** Stores how the attempt's process started and its marker. */
  recordProcess(attempt: A, taken: TakenProcess): Promise<void>;
  /** The record is written beside the run instead of before the message. */
  readonly recordsWhileRunning?: boolean;
  /** Sends the message to the process and runs it to its result; the agent's events to `events`. */
  sendMessage(
    attempt: A,
    taken: TakenProcess,
    events: E,
    signal: AbortSignal,
  ): Promise<ClaudeTurnResult>;
  /** Reports made while the CLI works; their events come before the agent's. */
  whileRunning?(attempt: A, events: E): Promise<void>;

  /** The session was unknown to the CLI: the host ends it (the second attempt starts a new one). */
  sessionUnknown(attempt: A, outcome: TurnOutcome): Promise<void>;
  /** Stores a succeeded or failed outcome (`transcript`: what the CLI left, for a success). */
  storeOutcome(
    attempt: A,
    outcome: TurnOutcome,
    transcript: Awaited<ReturnType<typeof transcriptAfterTurn>>,
  ): Promise<void>;
  /** Aborted while the host stops: the host puts the work back. Without it, such a turn fails. */
  interrupted?(attempt: A, outcome: TurnOutcome): Promise<void>;
  /** A stage threw (a `TurnFailure`, or anything unexpected): the host records the failure. */
  failed(error: unknown, progress: Readonly<TurnProgress<S>>): Promise<void>;
}
