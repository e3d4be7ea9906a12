import { createHash, randomUUID } from "node:crypto";
import { join } from "node:path";
import {
  cliFallbackOfTurn,
  definedEntries,
  type PromptCacheTtl,
  type OrphanWatchdog,
  type SessionPoint,
  turnErrorFor,
} from "@talkide/claude-cli";
import type { Gateway } from "@talkide/gateway";
import { buildInboundWakePrompt, parseDelivery } from "@talkide/prompts";
import {
  endSession,
  engineDb,
  isPinnedTo,
  lastEndReason,
  repinSession,
  runTurnPipeline,
  startSession,
  type SessionRow,
  type TakenProcess,
  type transcriptAfterTurn,
  type TurnAttempt,
  type TurnContext as EngineTurnContext,
  TurnFailure,
  type TurnOutcome,
  type TurnPipelineHost,
} from "@talkide/turn-engine";
import type { DaemonDb, SessionInvalidationReason } from "../db/schema.ts";
import type { DaemonEvent, EventBus } from "../events/bus.ts";
import type { DaemonExtension } from "../extension.ts";
import type { Logger } from "@talkide/service-kit";
import { buildAgentEnv, PER_TURN_VARIABLES } from "../runtime/agent-env.ts";
import { turnSandboxPolicy, type DaemonSandbox } from "../runtime/agent-sandbox.ts";
import { agentProjectKey, senderUserKey } from "../runtime/model-gateway.ts";
import { writeTurnEnvFile } from "../runtime/turn-env-file.ts";
import type { ClaudeCodeRuntime, ClaudeCodeTurn } from "../runtime/claude-code.ts";
import { conversationScope } from "../sessions/agent-sessions.ts";
import { otherWorkspaces } from "../store/agents.ts";
import { failDelivery, type ClaimedDelivery } from "../store/deliveries.ts";
import { recordTurnSuccess } from "../store/turn-success.ts";
import { endTurn, recordTurnProcess, startTurn, type TurnProcess } from "../store/turns.ts";
import { accountTurn, type NewSessionWhy } from "./turn-account.ts";

export interface StandingPrompt {
  readonly text: string;
  /** sha256 of the text; a session is bound to the version it started with. */
  readonly version: string;
}

export interface TurnContext {
  readonly db: DaemonDb;
  readonly events: EventBus;
  readonly logger: Logger;
  readonly runtime: ClaudeCodeRuntime;
  readonly standingPrompt: StandingPrompt;
  readonly hostId: string;
  readonly ticlawkBinDir: string;
  /** The CLI's `CLAUDE_CONFIG_DIR`, the daemon's own: checked before every turn. */
  readonly claudeConfigDir: string;
  /** How long the Messages API keeps each turn's prompt cache (`ENABLE_PROMPT_CACHING_1H` for `1h`). */
  readonly promptCacheTtl: PromptCacheTtl;
  /** What the child environment is built from (the daemon's environment by default). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly extensions: readonly DaemonExtension[];
  readonly daemonUrl: () => string;
  /** Puts a running delivery back in line (a new job at the end of its lane); false if it was not running. */
  readonly requeue: (deliveryId: string) => Promise<boolean>;
  /** Ends this daemon's turn processes when the daemon dies, however it dies. */
  readonly watchdog: OrphanWatchdog;
  /** Where each session's current-turn values are written for `ticlawk` (turn-env-file.ts). */
  readonly turnEnvDir: string;
  /** What every turn's commands may read and reach (agent-sandbox.ts). */
  readonly sandbox: DaemonSandbox;
  /**
   * The model gateway every process reaches the provider through (a token of its own per
   * process; the turn's usage, cost and limits); null when the daemon has no provider
   * credential and the CLI uses its own login (model-gateway.ts).
   */
  readonly gateway: Gateway | null;
  /**
   * Instruction files found in a workspace before a turn are moved to a folder of this
   * directory (one per agent) so the CLI never loads them; unset: they stay and are reported.
   */
  readonly quarantineDir?: string;
}

/** One folder per agent, named by a digest of its id (any id is a safe file name then). */
function agentQuarantineDir(root: string, agentId: string): string {
  return join(root, `agent-${createHash("sha256").update(agentId).digest("hex").slice(0, 16)}`);
}

/**
 * Runs one claimed (running) delivery to its end on the turn pipeline (`runTurnPipeline` of
 * @talkide/turn-engine): completed, failed with a reason, or, when the daemon is stopping, back
 * in line. The daemon is the host: the conversation's session (bound to the standing prompt's
 * version), the standing and wake prompts and the child environment, the turn rows, the events.
 *
 * An unknown runtime session on resume (its transcript is gone) invalidates the session and
 * the same delivery runs again at once in a fresh session: the message is still unanswered
 * and nothing of it reached the runtime, so waiting for the next message would only lose it.
 * That retry happens once; if the fresh turn fails too, the delivery fails with its reason.
 */
export async function executeDelivery(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  signal: AbortSignal,
  /** `inspectWorkspace` of the delivery's workspace, when the caller started it. */
  inspected?: Promise<readonly string[]>,
): Promise<void> {
  await runTurnPipeline(deliveryHost(ctx, delivery, inspected), signal);
}

/** What the daemon renders for a turn: the wake prompt, from the stored delivery. */
interface DeliveryContext extends EngineTurnContext {
  readonly wake: { readonly text: string; readonly target: string };
  /** Whom the turn is for: the message's sender (`senderUserKey`), for the user limits. */
  readonly userKey: string | null;
}

/** One turn of the delivery: its own id, row and session. */
interface DeliveryAttempt extends TurnAttempt<Bus> {
  readonly sessionId: string;
  readonly turn: ClaudeCodeTurn;
  readonly claudeVersion: string | null;
  /** When the attempt was prepared (ms): the CLI's transcript lines of this turn come after. */
  readonly preparedAt: number;
  /** Why its session is new, or that it resumes one: the words for a `new_session` miss. */
  readonly why: NewSessionWhy;
  readonly recordProcess: (taken: TakenProcess) => Promise<void>;
}

function deliveryHost(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  inspected: Promise<readonly string[]> | undefined,
): TurnPipelineHost<Bus, DeliveryContext, DeliveryAttempt> {
  const log = ctx.logger.child({ deliveryId: delivery.id, agentId: delivery.agent_id });
  const publishInvalidated = (sessionId: string, reason: SessionInvalidationReason): void => {
    ctx.events.publish({
      type: "session.reset",
      sessionId,
      agentId: delivery.agent_id,
      conversationId: delivery.conversation_id,
      reason,
    });
  };
  // Why the pipeline ended the conversation's session during this turn (the next attempt then
  // starts a new one): the words for the new session's cache miss.
  let ended: SessionInvalidationReason | null = null;
  const sessions = engineDb(ctx.db);
  const scope = conversationScope(delivery.agent_id, delivery.conversation_id);
  return {
    pool: ctx.runtime.warm,
    // The same object is the transcript ledger's owner when a success is stored.
    db: sessions,
    events: { live: ctx.events, hold: () => new HeldBus() },
    // The runtime keeps a session's first system prompt: a session started with another
    // standing prompt version is replaced, never resumed with a silently stale prompt.
    session: { scope: scope.scope, pin: ctx.standingPrompt.version },
    prepareContext: async () => {
      let parsed: ReturnType<typeof parseDelivery>;
      try {
        parsed = parseDelivery(delivery.payload);
      } catch (error) {
        // Stored deliveries were valid when accepted; a stricter schema of a newer daemon can
        // still refuse one. It cannot become valid by waiting, so it fails.
        const why = error instanceof Error ? error.message : String(error);
        throw new TurnFailure("invalid_payload", `The stored delivery no longer validates: ${why}`);
      }
      const userKey = senderUserKey(parsed);
      // A turn over a limit fails before anything is started and any request leaves; the
      // delivery stays, failed with the limit's words, and can be retried once the limit
      // allows (POST /v1/deliveries/:id/retry).
      const reached = await ctx.gateway?.checkLimits({
        projectKey: agentProjectKey(delivery.agent_id),
        userKey,
      });
      if (reached !== undefined && reached !== null) {
        log.info(
          { scope: reached.scope, period: reached.period, setting: reached.setting },
          "turn refused over a usage limit",
        );
        throw new TurnFailure(USAGE_LIMIT_REACHED, reached.message);
      }
      return {
        workspaceDir: delivery.workspace_dir,
        claudeConfigDir: ctx.claudeConfigDir,
        inspected,
        wake: buildInboundWakePrompt(parsed),
        userKey,
        ...(ctx.quarantineDir === undefined
          ? {}
          : { quarantineDir: agentQuarantineDir(ctx.quarantineDir, delivery.agent_id) }),
      };
    },
    // Instruction files inside the workspace (the daemon writes none there) are moved out
    // before the spawn (when the daemon has a quarantine directory) and reported.
    workspaceGuarded: (guarded, bus) => {
      if (!guarded.ok || guarded.instructionFiles.length === 0) return;
      bus.publish({
        type: "workspace.instructions",
        deliveryId: delivery.id,
        agentId: delivery.agent_id,
        files: guarded.instructionFiles,
      });
    },
    endSession: async (live, end) => {
      if (end.reason === "pinned_elsewhere") {
        ended = "standing_prompt_changed";
        await endSession(sessions, live.id, "standing_prompt_changed");
        publishInvalidated(live.id, "standing_prompt_changed");
        return;
      }
      // The runtime did not know the resumed session: the attempt's turn failed, and the
      // next attempt starts a new session.
      const { attempt, outcome } = end;
      if (outcome.kind === "succeeded") return;
      ended = "unknown_session";
      await recordFailedTurn(ctx, delivery, log, attempt, outcome, true);
      if (await endSession(sessions, attempt.sessionId, "unknown_session"))
        publishInvalidated(attempt.sessionId, "unknown_session");
    },

    beginAttempt: async (live, point, context, instructionFiles) =>
      beginAttempt(ctx, delivery, live, point, context, instructionFiles, {
        why: await newSessionWhy(ctx, delivery, live, point, ended),
      }),
    recordProcess: (attempt, taken) => attempt.recordProcess(taken),
    sendMessage: (attempt, taken, _bus, signal) => ctx.runtime.send(taken, attempt.turn, signal),

    finish: async (end) => {
      if (end.kind === "error") {
        if (!(end.error instanceof TurnFailure)) throw end.error;
        await fail(ctx, delivery, end.error.code, end.error.message);
        return;
      }
      const { attempt, outcome, transcript } = end;
      if (outcome.kind === "interrupted") {
        await interrupted(attempt, outcome);
        return;
      }
      if (outcome.kind === "succeeded") {
        // turn.succeeded and delivery.completed reach the log through the event bus.
        await recordSuccess(ctx, delivery, attempt, outcome, transcript);
        return;
      }
      // What people read is the engine's safe message (or the limit's); the CLI's own text
      // (which may hold a gateway's address or the provider's words) goes to the log only.
      const failure = await recordFailedTurn(ctx, delivery, log, attempt, outcome, false);
      await fail(ctx, delivery, failure.reason, failure.message);
    },
  };

  /** The daemon stopped during the turn: the turn is interrupted, the delivery back in line. */
  async function interrupted(attempt: DeliveryAttempt, outcome: TurnOutcome): Promise<void> {
    await endTurn(ctx.db, attempt.turnId, {
      state: "interrupted",
      sessionId: attempt.sessionId,
      failureReason: "daemon_stopped",
      failureMessage: "the daemon stopped during this turn; the delivery goes back in line",
      account: await accountTurn(
        ctx.gateway,
        attempt.turnId,
        { usage: outcome.result.usage, costUsd: outcome.costUsd },
        attempt.why,
      ),
    });
    if (await ctx.requeue(delivery.id)) {
      ctx.events.publish({
        type: "delivery.requeued",
        deliveryId: delivery.id,
        agentId: delivery.agent_id,
        attempts: delivery.attempts,
      });
    }
    log.info({ turnId: attempt.turnId }, "turn interrupted by shutdown; delivery requeued");
  }
}

/** The failure of a turn over a usage limit (before it started, or a request refused in it). */
const USAGE_LIMIT_REACHED = "usage_limit_reached";

/**
 * Why an attempt's session is new to the gateway, for the words of its first request's cache
 * miss: it resumes one (`resumed`: the gateway had not seen it), the pipeline just ended the
 * conversation's session, the live one has not begun, or the conversation's last session ended
 * earlier (reset, …); else this is the conversation's first.
 */
async function newSessionWhy(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  live: SessionRow | null,
  point: SessionPoint | null,
  ended: SessionInvalidationReason | null,
): Promise<NewSessionWhy> {
  if (point !== null) return "resumed";
  if (ended !== null) return ended;
  if (live !== null) return "not_begun";
  // Only the gateway's figures carry a miss to name: without it, no read.
  if (ctx.gateway === null) return "first";
  const scope = conversationScope(delivery.agent_id, delivery.conversation_id).scope;
  const reason = await lastEndReason(engineDb(ctx.db), scope);
  return (reason as SessionInvalidationReason | null) ?? "first";
}

/**
 * An attempt in the conversation's open session at `point`, as the engine chose them (null
 * session: a new one, started here; an open session that has not begun is reused, pinned to the
 * standing prompt of now). No transaction is needed: only this turn runs in the conversation
 * (the scheduler's guarantee), and the engine's store allows one open session per scope.
 */
async function beginAttempt(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  live: SessionRow | null,
  point: SessionPoint | null,
  context: DeliveryContext,
  instructionFiles: readonly string[],
  { why }: { readonly why: NewSessionWhy },
): Promise<DeliveryAttempt> {
  const sessions = engineDb(ctx.db);
  const scope = conversationScope(delivery.agent_id, delivery.conversation_id);
  const sessionId =
    live?.id ?? (await startSession(sessions, scope, ctx.standingPrompt.version)).id;
  // Its first runtime session starts with the standing prompt of now.
  if (live !== null && point === null && !isPinnedTo(live, ctx.standingPrompt.version))
    await repinSession(sessions, live.id, ctx.standingPrompt.version);
  const resumeId = point?.id ?? null;
  const turnEnvBase = {
    agentId: delivery.agent_id,
    conversationId: delivery.conversation_id,
    messageId: delivery.message_id,
    sessionId,
  };
  const claudeVersion = await ctx.runtime.version(definedEntries(ctx.baseEnv));
  const turnId = randomUUID();
  const preparedAt = Date.now();
  const extra = await extensionEnv(ctx, { ...turnEnvBase, turnId });
  const turnEnvFile = join(ctx.turnEnvDir, `${sessionId}.sh`);
  const sandbox = turnSandboxPolicy(ctx.sandbox, {
    workspaceDir: delivery.workspace_dir,
    otherWorkspaces: await otherWorkspaces(ctx.db, delivery.agent_id),
    turnEnvFile,
  });
  const env = buildAgentEnv({
    baseEnv: ctx.baseEnv,
    ticlawkBinDir: ctx.ticlawkBinDir,
    turn: {
      ...turnEnvBase,
      hostId: ctx.hostId,
      target: context.wake.target,
      turnId,
      daemonUrl: ctx.daemonUrl(),
      turnEnvFile,
    },
    extra,
    claudeConfigDir: ctx.claudeConfigDir,
    promptCacheTtl: ctx.promptCacheTtl,
  });
  // What changes per turn reaches `ticlawk` through the session's file as well, since a kept
  // process keeps the environment of the turn that started it.
  const perTurnVariables = [
    ...PER_TURN_VARIABLES,
    ...ctx.extensions.flatMap((extension) => extension.perTurnEnv ?? []),
  ];
  const turn: ClaudeCodeTurn = {
    cwd: delivery.workspace_dir,
    wakePrompt: context.wake.text,
    standingPrompt: ctx.standingPrompt.text,
    resumeRuntimeSessionId: resumeId,
    resumeAtMessageId: point?.at ?? null,
    env,
    perTurnVariables,
    sessionKey: sessionId,
    instructionFiles,
    sandbox,
  };
  // The turn's row, then `turn.started`. A turn in the conversation's kept process gets its
  // row together with how its process started, once that is known (one statement); a turn that
  // needs a new process gets it before anything is started for it, so that a dead daemon's
  // processes are found by the turn ids stored in its rows. Either way the row and its process
  // marker are stored before the message is sent.
  const row: { stored: boolean } = { stored: false };
  const storeTurnRow = async (process: TurnProcess | null): Promise<void> => {
    await startTurn(
      ctx.db,
      {
        id: turnId,
        deliveryId: delivery.id,
        sessionId,
        agentId: delivery.agent_id,
        conversationId: delivery.conversation_id,
        attempt: delivery.attempts,
        resumedRuntimeSessionId: resumeId,
        claudeVersion,
      },
      process,
    );
    row.stored = true;
    ctx.events.publish({
      type: "turn.started",
      turnId,
      deliveryId: delivery.id,
      agentId: delivery.agent_id,
      conversationId: delivery.conversation_id,
      sessionId,
      attempt: delivery.attempts,
      resumed: resumeId !== null,
    });
  };
  const { gateway } = ctx;
  return {
    sessionId,
    turn,
    turnId,
    claudeVersion,
    preparedAt,
    why,
    // The warm pool keeps one process per conversation, by the scope the store answers by.
    key: scope.scope,
    sessionKey: sessionId,
    userKey: context.userKey,
    // The session's total so far: the CLI's running total is compared with it (no gateway).
    previousCumulativeCostUsd: point === null ? null : (live?.cumulative_cost_usd ?? null),
    // Each new process gets a token of its own: it counts for the agent, and for the turn
    // (and its sender) it runs while the engine attaches it.
    cold: ctx.runtime.coldStart(
      turn,
      ctx.watchdog,
      gateway === null
        ? undefined
        : () => gateway.issue({ projectKey: agentProjectKey(delivery.agent_id) }),
    ),
    digest: () => ctx.runtime.digest(turn),
    // The turn's own id reaches the processes `ticlawk` starts (from the turn's env file).
    watchdog: ctx.watchdog,
    // Written while the process is taken or started: it must be in place before the message.
    whileTaking: () =>
      writeTurnEnvFile(
        turnEnvFile,
        Object.fromEntries(
          perTurnVariables.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])),
        ),
      ),
    beforeColdStart: () => storeTurnRow(null),
    recordProcess: async (taken) => {
      const info = { kind: taken.kind, coldReason: taken.coldReason, marker: taken.marker };
      await (row.stored ? recordTurnProcess(ctx.db, turnId, info) : storeTurnRow(info));
      ctx.events.publish({
        type: "turn.process",
        turnId,
        deliveryId: delivery.id,
        agentId: delivery.agent_id,
        sessionId,
        process: taken.kind,
        coldReason: taken.coldReason,
      });
    },
  };
}

/**
 * A failed turn's row and event (`retrying`: the unknown-session restart follows), with what it
 * cost charged to it and its session. A turn one of whose requests the gateway refused over a
 * limit fails as `usage_limit_reached` with the limit's words, as one refused before it started.
 * Returns the reason and message the delivery fails with.
 */
async function recordFailedTurn(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  log: Logger,
  attempt: DeliveryAttempt,
  outcome: Exclude<TurnOutcome, { kind: "succeeded" }>,
  unknownSession: boolean,
): Promise<{ readonly reason: string; readonly message: string }> {
  const { turnId, sessionId } = attempt;
  const failure = outcome.result;
  const account = await accountTurn(
    ctx.gateway,
    turnId,
    { usage: failure.usage, costUsd: outcome.costUsd },
    attempt.why,
  );
  const refusal = (await ctx.gateway?.refusalOf(turnId)) ?? null;
  const reason =
    refusal !== null ? USAGE_LIMIT_REACHED : unknownSession ? "unknown_session" : failure.reason;
  const message = refusal?.message ?? turnErrorFor(failure).message;
  await endTurn(ctx.db, turnId, {
    state: "failed",
    sessionId,
    runtimeSessionId: failure.sessionId,
    failureReason: reason,
    failureMessage: message,
    exitCode: failure.exitCode,
    account,
    usageLimit: refusal,
  });
  ctx.events.publish({
    type: "turn.failed",
    turnId,
    deliveryId: delivery.id,
    agentId: delivery.agent_id,
    conversationId: delivery.conversation_id,
    sessionId,
    reason,
    retrying: unknownSession,
  });
  log.warn(
    {
      turnId,
      sessionId,
      reason: failure.reason,
      detail: failure.message,
      unknownSession,
      retrying: unknownSession,
      ...(refusal === null ? {} : { limit: refusal.setting }),
    },
    "turn failed",
  );
  return { reason, message };
}

async function recordSuccess(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  { sessionId, turnId, claudeVersion, preparedAt, why }: DeliveryAttempt,
  { result, costUsd }: Extract<TurnOutcome, { kind: "succeeded" }>,
  transcript: Awaited<ReturnType<typeof transcriptAfterTurn>>,
): Promise<void> {
  const account = await accountTurn(ctx.gateway, turnId, { usage: result.usage, costUsd }, why);
  await recordTurnSuccess(ctx.db, {
    turnId,
    sessionId,
    deliveryId: delivery.id,
    agentId: delivery.agent_id,
    runtimeSessionId: result.sessionId,
    account,
    // Recorded, and the session continues, as in the backend (its README: a new session would
    // write the whole prefix again and meet the same refusal).
    cliFallback: cliFallbackOfTurn(transcript, preparedAt),
    // Where the session's next turn resumes: a failed turn after it never reaches the model.
    resumeAtMessageId: result.lastMessageId,
    events: result.events,
    transcript,
    agentMeta: {
      claudePath: ctx.runtime.claudePath,
      claudeVersion,
      lastTurnAt: new Date().toISOString(),
    },
  });
  ctx.events.publish({
    type: "turn.succeeded",
    turnId,
    deliveryId: delivery.id,
    agentId: delivery.agent_id,
    conversationId: delivery.conversation_id,
    sessionId,
    runtimeSessionId: result.sessionId,
    costUsd: account.costUsd,
  });
  ctx.events.publish({
    type: "delivery.completed",
    deliveryId: delivery.id,
    agentId: delivery.agent_id,
  });
}

async function fail(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  reason: string,
  message: string,
): Promise<void> {
  if (await failDelivery(ctx.db, delivery.id, reason, message)) {
    ctx.events.publish({
      type: "delivery.failed",
      deliveryId: delivery.id,
      agentId: delivery.agent_id,
      reason,
    });
    ctx.logger.warn(
      { deliveryId: delivery.id, agentId: delivery.agent_id, reason },
      "delivery failed",
    );
  }
}

async function extensionEnv(
  ctx: TurnContext,
  turn: Parameters<NonNullable<DaemonExtension["childEnv"]>>[0],
): Promise<Record<string, string>> {
  const merged: Record<string, string> = {};
  for (const extension of ctx.extensions) {
    if (extension.childEnv !== undefined) Object.assign(merged, await extension.childEnv(turn));
  }
  return merged;
}

/** Where a turn's events go: the daemon's bus. */
type Bus = Pick<EventBus, "publish">;

/** Bus events held back until released (the pipeline's holder; the daemon's turns use none). */
class HeldBus {
  private readonly held: DaemonEvent[] = [];
  private target: Bus | null = null;

  publish(event: DaemonEvent): void {
    if (this.target === null) this.held.push(event);
    else this.target.publish(event);
  }

  releaseTo(target: Bus): void {
    this.target = target;
    for (const event of this.held.splice(0)) target.publish(event);
  }
}
