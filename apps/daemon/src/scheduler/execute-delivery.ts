import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { definedEntries, HERMETIC_CLAUDE_ENV, type OrphanWatchdog } from "@talkide/claude-cli";
import { buildInboundWakePrompt, parseDelivery } from "@talkide/prompts";
import {
  classifyTurnOutcome,
  guardWorkspace,
  materialiseTranscript,
  transcriptAfterTurn,
  type TurnOutcome,
} from "@talkide/turn-engine";
import type { DaemonDb } from "../db/schema.ts";
import type { EventBus } from "../events/bus.ts";
import type { DaemonExtension } from "../extension.ts";
import type { Logger } from "@talkide/service-kit";
import { buildAgentEnv, PER_TURN_VARIABLES } from "../runtime/agent-env.ts";
import { writeTurnEnvFile } from "../runtime/turn-env-file.ts";
import type { ClaudeCodeRuntime } from "../runtime/claude-code.ts";
import {
  resolveSessionScope,
  sessionPatchAfterTurn,
  type LiveSession,
  type SessionScope,
} from "../sessions/scope.ts";
import { failDelivery, type ClaimedDelivery } from "../store/deliveries.ts";
import { loadStoredTranscript } from "../sessions/transcripts.ts";
import { createSession, invalidateSession } from "../store/sessions.ts";
import { recordTurnSuccess } from "../store/turn-outcome.ts";
import {
  finishTurn,
  interruptTurn,
  recordTurnProcess,
  startTurn,
  type TurnProcess,
} from "../store/turns.ts";

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
}

/**
 * Runs one claimed (running) delivery to its end: completed, failed with a reason, or, when
 * the daemon is stopping, back in line.
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
  const log = ctx.logger.child({ deliveryId: delivery.id, agentId: delivery.agent_id });
  let wake: { readonly text: string; readonly target: string };
  try {
    wake = buildInboundWakePrompt(parseDelivery(delivery.payload));
  } catch (error) {
    // Stored deliveries were valid when accepted; a stricter schema of a newer daemon can
    // still refuse one. It cannot become valid by waiting, so it fails.
    const why = error instanceof Error ? error.message : String(error);
    await fail(ctx, delivery, "invalid_payload", `The stored delivery no longer validates: ${why}`);
    return;
  }

  const instructionFiles = await workspaceStandsAlone(ctx, delivery, inspected);
  if (instructionFiles === null) return;

  // The claim brought the conversation's live session along; a retry after an unknown
  // session starts without one (it was just invalidated).
  let live: LiveSession | null =
    delivery.live_session_id === null || delivery.live_standing_prompt_version === null
      ? null
      : {
          id: delivery.live_session_id,
          runtimeSessionId: delivery.live_runtime_session_id,
          resumeAtMessageId: delivery.live_resume_at_message_id,
          standingPromptVersion: delivery.live_standing_prompt_version,
          cumulativeCostUsd: delivery.live_cumulative_cost_usd,
        };
  for (let round = 1; round <= 2; round += 1) {
    const { scope, sessionId } = await prepareSession(ctx, delivery, live);
    live = null;
    const resumeId = scope.kind === "resume" ? scope.runtimeSessionId : null;
    const turnEnvBase = {
      agentId: delivery.agent_id,
      conversationId: delivery.conversation_id,
      messageId: delivery.message_id,
      sessionId,
    };
    const claudeVersion = await ctx.runtime.version(definedEntries(ctx.baseEnv));
    const turnId = randomUUID();
    // The turn's row, then `turn.started`. A turn in the conversation's kept process gets its
    // row together with how its process started, once that is known (one statement); a turn
    // that needs a new process gets it before anything is started for it, so that a dead
    // daemon's processes are found by the turn ids stored in its rows. Either way the row and
    // its process marker are stored before the message is sent.
    let rowStored = false;
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
      rowStored = true;
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

    const extra = await extensionEnv(ctx, { ...turnEnvBase, turnId });
    const env = buildAgentEnv({
      baseEnv: ctx.baseEnv,
      ticlawkBinDir: ctx.ticlawkBinDir,
      turn: {
        ...turnEnvBase,
        hostId: ctx.hostId,
        target: wake.target,
        turnId,
        daemonUrl: ctx.daemonUrl(),
        turnEnvFile: join(ctx.turnEnvDir, `${sessionId}.sh`),
      },
      extra,
    });
    // What changes per turn reaches `ticlawk` through the session's file as well, since a
    // kept process keeps the environment of the turn that started it.
    const perTurnVariables = [
      ...PER_TURN_VARIABLES,
      ...ctx.extensions.flatMap((extension) => extension.perTurnEnv ?? []),
    ];
    // Written while the runtime checks out or starts the process and the process is recorded:
    // it must be in place before the message is sent (`onProcess`), not before that.
    const envFileWritten = writeTurnEnvFile(
      join(ctx.turnEnvDir, `${sessionId}.sh`),
      Object.fromEntries(
        perTurnVariables.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])),
      ),
    );
    // Awaited in `onProcess`; a turn that fails before that must not leave it unhandled.
    envFileWritten.catch(() => undefined);
    // Set by `onProcess` (a callback, which the flow analysis does not see: hence the cast).
    let processKind = null as TurnProcess["kind"] | null;
    const result = await ctx.runtime.runTurn({
      cwd: delivery.workspace_dir,
      wakePrompt: wake.text,
      standingPrompt: ctx.standingPrompt.text,
      resumeRuntimeSessionId: resumeId,
      resumeAtMessageId: scope.kind === "resume" ? scope.resumeAtMessageId : null,
      // Last: the daemon's own Claude config dir (never the operator's `~/.claude`, whose
      // CLAUDE.md, rules and settings would reach every agent), no auto memory, no git status.
      env: { ...env, CLAUDE_CONFIG_DIR: ctx.claudeConfigDir, ...HERMETIC_CLAUDE_ENV },
      perTurnVariables,
      sessionKey: sessionId,
      instructionFiles,
      turnId,
      watchdog: ctx.watchdog,
      signal,
      // The database owns the session: whichever daemon ran its last turn, its transcript is
      // written where the CLI reads it before a process resumes it (a kept process has it).
      beforeColdResume: async () => {
        const store = { loadTranscript: (id: string) => loadStoredTranscript(ctx.db, id) };
        await materialiseTranscript(store, ctx.claudeConfigDir, sessionId);
      },
      beforeColdStart: () => storeTurnRow(null),
      onProcess: async (info) => {
        processKind = info.kind;
        // Both settle before either failure is raised: nothing of this turn runs on after it.
        const [stored, written] = await Promise.allSettled([
          rowStored ? recordTurnProcess(ctx.db, turnId, info) : storeTurnRow(info),
          envFileWritten,
        ]);
        if (stored.status === "rejected") throw asError(stored.reason);
        if (written.status === "rejected") throw asError(written.reason);
        ctx.events.publish({
          type: "turn.process",
          turnId,
          deliveryId: delivery.id,
          agentId: delivery.agent_id,
          sessionId,
          process: info.kind,
          coldReason: info.coldReason,
        });
      },
    });

    const outcome = classifyTurnOutcome(result, {
      previousCumulativeCostUsd: scope.kind === "resume" ? scope.previousCumulativeCostUsd : null,
      resumedCold: scope.kind === "resume" && processKind !== "warm",
      stopping: signal.aborted,
    });
    if (outcome.kind === "interrupted") {
      await interruptTurn(
        ctx.db,
        turnId,
        "the daemon stopped during this turn; the delivery goes back in line",
      );
      if (await ctx.requeue(delivery.id)) {
        ctx.events.publish({
          type: "delivery.requeued",
          deliveryId: delivery.id,
          agentId: delivery.agent_id,
          attempts: delivery.attempts,
        });
      }
      log.info({ turnId }, "turn interrupted by shutdown; delivery requeued");
      return;
    }

    if (outcome.kind === "succeeded") {
      // turn.finished and delivery.completed reach the log through the event bus.
      await recordSuccess(ctx, delivery, scope, sessionId, turnId, claudeVersion, outcome);
      return;
    }

    const { result: failure } = outcome;
    const unknownSession = outcome.kind === "unknown_session";
    const retrying = unknownSession && round === 1;
    await finishTurn(ctx.db, turnId, {
      ok: false,
      runtimeSessionId: failure.sessionId,
      failureReason: unknownSession ? "unknown_session" : failure.reason,
      failureMessage: failure.message,
      exitCode: failure.exitCode,
      costUsd: null,
      cumulativeCostUsd: failure.totalCostUsd,
      events: [],
    });
    ctx.events.publish({
      type: "turn.failed",
      turnId,
      deliveryId: delivery.id,
      agentId: delivery.agent_id,
      conversationId: delivery.conversation_id,
      sessionId,
      reason: unknownSession ? "unknown_session" : failure.reason,
      retrying,
    });
    log.warn(
      { turnId, sessionId, reason: failure.reason, unknownSession, retrying },
      "turn failed",
    );
    if (unknownSession) {
      if (await invalidateSession(ctx.db, sessionId, "unknown_session")) {
        ctx.events.publish({
          type: "session.invalidated",
          sessionId,
          agentId: delivery.agent_id,
          conversationId: delivery.conversation_id,
          reason: "unknown_session",
        });
      }
    }
    if (retrying) continue;
    await fail(ctx, delivery, failure.reason, failure.message);
    return;
  }
}

/**
 * Finds or starts the session this turn runs in, invalidating a stale one. No transaction
 * is needed: only this turn runs in the conversation (the scheduler's guarantee), and the
 * database allows one live session per conversation. Stopped between invalidating and
 * creating, the next turn finds no live session and starts one.
 */
async function prepareSession(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  live: LiveSession | null,
): Promise<{ readonly scope: SessionScope; readonly sessionId: string }> {
  const scope = resolveSessionScope(live, ctx.standingPrompt.version);
  if (scope.kind === "resume") return { scope, sessionId: scope.sessionId };
  if (scope.invalidate !== null) {
    await invalidateSession(ctx.db, scope.invalidate.sessionId, scope.invalidate.reason);
    ctx.events.publish({
      type: "session.invalidated",
      sessionId: scope.invalidate.sessionId,
      agentId: delivery.agent_id,
      conversationId: delivery.conversation_id,
      reason: scope.invalidate.reason,
    });
  }
  const sessionId =
    scope.reuseSessionId ??
    (await createSession(ctx.db, {
      agentId: delivery.agent_id,
      conversationId: delivery.conversation_id,
      runtime: delivery.runtime,
      standingPromptVersion: ctx.standingPrompt.version,
    }));
  return { scope, sessionId };
}

async function recordSuccess(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  scope: SessionScope,
  sessionId: string,
  turnId: string,
  claudeVersion: string | null,
  { result, costUsd }: Extract<TurnOutcome, { kind: "succeeded" }>,
): Promise<void> {
  const patch = sessionPatchAfterTurn(scope, {
    ok: true,
    runtimeSessionId: result.sessionId,
    lastMessageId: result.lastMessageId,
    cumulativeCostUsd: result.totalCostUsd,
  });
  const transcript = await transcriptAfterTurn(
    ctx.db,
    ctx.claudeConfigDir,
    sessionId,
    result.sessionId,
  );
  await recordTurnSuccess(ctx.db, {
    turnId,
    sessionId,
    deliveryId: delivery.id,
    agentId: delivery.agent_id,
    runtimeSessionId: result.sessionId,
    costUsd,
    cumulativeCostUsd: result.totalCostUsd,
    sessionCumulativeCostUsd: patch?.cumulativeCostUsd ?? null,
    resumeAtMessageId: patch?.resumeAtMessageId ?? null,
    events: result.events,
    transcript,
    agentMeta: {
      claudePath: ctx.runtime.claudePath,
      claudeVersion,
      lastTurnAt: new Date().toISOString(),
    },
  });
  ctx.events.publish({
    type: "turn.finished",
    turnId,
    deliveryId: delivery.id,
    agentId: delivery.agent_id,
    conversationId: delivery.conversation_id,
    sessionId,
    runtimeSessionId: result.sessionId,
    costUsd,
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

/**
 * The isolation check before a turn (`guardWorkspace` of @talkide/turn-engine). A breach fails
 * the delivery with `workspace_not_isolated`, naming the file, and nothing is spawned;
 * instruction files inside the workspace (the daemon writes none there) are reported as a
 * `workspace.instructions` event.
 */
async function workspaceStandsAlone(
  ctx: TurnContext,
  delivery: ClaimedDelivery,
  inspected: Promise<readonly string[]> | undefined,
): Promise<readonly string[] | null> {
  const guarded = await guardWorkspace({
    workspaceDir: delivery.workspace_dir,
    claudeConfigDir: ctx.claudeConfigDir,
    ...(inspected === undefined ? {} : { inspected }),
  });
  if (!guarded.ok) {
    await fail(ctx, delivery, guarded.code, guarded.message);
    return null;
  }
  const files = guarded.instructionFiles;
  if (files.length > 0) {
    ctx.events.publish({
      type: "workspace.instructions",
      deliveryId: delivery.id,
      agentId: delivery.agent_id,
      files,
    });
  }
  return files;
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

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
