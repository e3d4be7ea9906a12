import {
  isSyntheticAssistantEvent,
  apiRetryOf,
  isUnknownSessionFailure,
  perTurnCostUsd,
  runClaudeTurn,
  turnErrorFor,
  type ClaudeStreamEvent,
  type ClaudeTurnResult,
  WorkspaceIsolationError,
} from "@talkide/claude-cli";
import { importSafe, type MaraPluginDigest } from "@talkide/prompts";
import { derivePorts, probePort } from "@talkide/ports";
import type { Kysely } from "kysely";
import { sql, type Selectable } from "kysely";
import type { Logger } from "pino";
import { prepareSpawnContext, type ContextLayout } from "../context/prepare.ts";
import type { WriteHooks } from "../context/write-if-changed.ts";
import type { AgentSessionsTable, DatabaseSchema } from "../db/schema.ts";
import { insertQueuedTurn, type TurnRow } from "../domain/turns.ts";
import { AppError } from "../errors.ts";
import { apiRetryEventData } from "./retry-event.ts";
import { type LiveTurn, type TurnEvent, TurnEventHub } from "./turn-events.ts";
import { guardWorkspace, type GuardedWorkspace } from "./workspace-guard.ts";

export interface ClaudeSettings {
  readonly claudePath: string;
  /** Called before every spawn: the complete environment of the child. */
  readonly env: () => Record<string, string>;
  readonly pluginDir: string;
  readonly agentName: string;
  /** What the plugin directory holds: a session started with other bytes is not resumed. */
  readonly pinned: MaraPluginDigest;
  /** The CLI's `CLAUDE_CONFIG_DIR`: checked before every spawn, with the workspace's ancestors. */
  readonly claudeConfigDir: string;
  readonly permissionMode: "default" | "acceptEdits" | "plan";
  readonly allowedTools: readonly string[];
  readonly timeoutMs: number;
  readonly killGraceMs?: number;
}

export interface TurnRunnerOptions {
  readonly db: Kysely<DatabaseSchema>;
  readonly logger: Logger;
  readonly claude: ClaudeSettings;
  readonly layout: ContextLayout;
  readonly queueLimit: number;
  readonly writeHooks?: WriteHooks;
}

/**
 * Claude Code's own agents (as listed by the pinned CLI's init event). Mara delegates only to
 * the team agents of her plugin, which are started without CLAUDE.md; measured at the wire,
 * `general-purpose`, `claude` and `statusline-setup` receive the whole CLAUDE.md (roster and
 * briefings) when called, and `Explore` and `Plan` are not in her delegation table. A
 * permission rule denies them all, so a delegation to one fails as a tool error instead of
 * handing the roster to an agent the seed says must not see it.
 */
export const BUILT_IN_AGENTS_DENIED = [
  "Agent(general-purpose)",
  "Agent(claude)",
  "Agent(statusline-setup)",
  "Agent(Explore)",
  "Agent(Plan)",
] as const;

/**
 * Claude Code flags beyond the ones every print-mode turn has. Excluding the dynamic system
 * prompt sections (working directory, date, git status) keeps the system prompt identical
 * across projects and turns, so the provider's prompt cache can be reused. The permission
 * mode and tool rules come from configuration: print mode cannot ask, so anything not
 * permitted up front is denied.
 */
export function extraClaudeArgs(
  settings: Pick<ClaudeSettings, "permissionMode" | "allowedTools">,
): string[] {
  const args = [
    "--exclude-dynamic-system-prompt-sections",
    "--permission-mode",
    settings.permissionMode,
    "--disallowedTools",
    BUILT_IN_AGENTS_DENIED.join(","),
  ];
  if (settings.allowedTools.length > 0)
    args.push("--allowedTools", settings.allowedTools.join(","));
  return args;
}

/**
 * Set in the environment of every spawned `claude` (and so of everything it starts): after a
 * crash of the service, the processes of its abandoned turns are found by it (reap on start).
 */
export const TURN_ID_VARIABLE = "TALKIDE_TURN_ID";

type SessionRow = Selectable<AgentSessionsTable>;

/** Why a turn did not continue the project's session; stored on the turn and in the event. */
type SessionResetReason = "agent_changed" | "unknown_session";

const SESSION_RESET_MESSAGES: Record<SessionResetReason, string> = {
  agent_changed:
    "Mara's agent file or plugin changed since this project's conversation started; this turn starts a new conversation with the current release. Earlier messages are not part of it.",
  unknown_session:
    "Claude Code no longer knows this project's conversation; this turn starts a new one. Earlier messages are not part of it.",
};

interface ProjectLane {
  running: string | null;
  readonly pending: string[];
  reserving: number;
  insertChain: Promise<unknown>;
  drainer: Promise<void> | null;
}

class TurnFailure extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * Runs Mara's turns: one at a time per project, in the order the messages arrived. While a
 * turn runs, up to `queueLimit` further messages wait (FIFO); one more is refused with 409
 * `project_busy`. Every turn renders the context before its spawn.
 */
export class TurnRunner {
  readonly hub = new TurnEventHub();
  private readonly lanes = new Map<number, ProjectLane>();
  private readonly abort = new AbortController();
  private closing = false;
  private readonly options: TurnRunnerOptions;

  constructor(options: TurnRunnerOptions) {
    this.options = options;
  }

  private lane(projectId: number): ProjectLane {
    let lane = this.lanes.get(projectId);
    if (lane === undefined) {
      lane = {
        running: null,
        pending: [],
        reserving: 0,
        insertChain: Promise.resolve(),
        drainer: null,
      };
      this.lanes.set(projectId, lane);
    }
    return lane;
  }

  /** Queues a message from a member; the turn's events follow on the hub. */
  async submit(options: { projectId: number; memberId: string; prompt: string }): Promise<TurnRow> {
    if (this.closing) {
      throw new AppError(
        "service_stopping",
        503,
        "Service is stopping",
        "The service is shutting down and takes no new messages; send it again once it is back.",
      );
    }
    const lane = this.lane(options.projectId);
    const waiting = lane.pending.length + lane.reserving;
    if ((lane.running !== null || waiting > 0) && waiting >= this.options.queueLimit) {
      throw new AppError(
        "project_busy",
        409,
        "Mara is busy with this project",
        this.options.queueLimit === 0
          ? "A turn is running for this project; send the message again when it has finished."
          : `A turn is running and ${waiting} more message(s) are waiting for this project (at most ${this.options.queueLimit} may wait); send the message again when the queue is shorter.`,
      );
    }
    lane.reserving += 1;
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const previous = lane.insertChain;
    lane.insertChain = previous.then(() => done);
    try {
      await previous;
      const row = await insertQueuedTurn(this.options.db, options);
      // Queue order is insert order: the push happens before the next insert may start.
      lane.pending.push(row.id);
      const live = this.hub.open(row.id, (event) => this.persistEvent(row.id, event));
      live.emit("turn.queued", {
        turnId: row.id,
        number: row.number,
        position: lane.pending.length - 1 + (lane.running === null ? 0 : 1),
      });
      this.kick(options.projectId);
      return row;
    } finally {
      lane.reserving -= 1;
      release();
    }
  }

  private kick(projectId: number): void {
    const lane = this.lane(projectId);
    if (lane.drainer !== null) return;
    lane.drainer = this.drain(lane).finally(() => {
      lane.drainer = null;
      // A message that arrived while the drainer was finishing must not be stranded.
      if (lane.pending.length > 0 && !this.closing) this.kick(projectId);
    });
  }

  private async drain(lane: ProjectLane): Promise<void> {
    for (;;) {
      const turnId = lane.pending.shift();
      if (turnId === undefined || this.closing) {
        if (turnId !== undefined) lane.pending.unshift(turnId);
        return;
      }
      lane.running = turnId;
      try {
        await this.runTurn(turnId);
      } catch (error) {
        this.options.logger.error({ err: error, turnId }, "turn runner failed");
      } finally {
        lane.running = null;
      }
    }
  }

  private async persistEvent(turnId: string, event: TurnEvent): Promise<void> {
    try {
      await this.options.db
        .insertInto("turn_events")
        .values({
          turn_id: turnId,
          seq: event.seq,
          type: event.type,
          data: JSON.stringify(event.data),
        })
        .execute();
    } catch (error) {
      this.options.logger.error(
        { err: error, turnId, seq: event.seq },
        "could not store a turn event",
      );
    }
  }

  private async runTurn(turnId: string): Promise<void> {
    const { db, logger } = this.options;
    const live = this.hub.get(turnId);
    if (live === undefined) throw new Error(`turn ${turnId} has no live event stream`);
    const turn = await db
      .updateTable("turns")
      .set({ status: "running", started_at: sql<string>`clock_timestamp()` })
      .where("id", "=", turnId)
      .returningAll()
      .executeTakeFirstOrThrow();
    let session = await db
      .selectFrom("agent_sessions")
      .selectAll()
      .where("project_id", "=", turn.project_id)
      .where("ended_at", "is", null)
      .executeTakeFirst();
    // Claude Code keeps a session's first system prompt (Mara's agent prompt) and its agents
    // for good: a session started with other bytes cannot carry the current release.
    const stale = session !== undefined && !this.isPinnedToCurrentRelease(session);
    const staleSession = stale ? session : undefined;
    if (stale) session = undefined;
    // Every turn spawns a new CLI process today ("cold"); a later kept-alive process will
    // report "warm" here, so clients can tell the two apart from the start.
    live.emit("turn.started", { turnId, resume: session !== undefined, process: "cold" });
    logger.info(
      { turnId, projectId: turn.project_id, resume: session !== undefined },
      "turn started",
    );

    try {
      if (staleSession !== undefined) {
        await this.resetSession(turn, live, staleSession, "agent_changed");
      }
      const workspaceDir = await this.prepare(turn, live);
      await this.guard(turn, workspaceDir, live);
      await this.reportBusyPorts(turn.project_id, live);
      let result = await this.spawn(turn, workspaceDir, session, live);
      let resumedFrom = session;
      if (session !== undefined && isUnknownSessionFailure(result)) {
        // Claude Code no longer has the transcript (its state directory was cleared) or the
        // resume point: the conversation cannot continue, so this turn starts a new one.
        await this.resetSession(turn, live, session, "unknown_session");
        resumedFrom = undefined;
        result = await this.spawn(turn, workspaceDir, undefined, live);
      }
      await this.finish(turn, live, result, resumedFrom);
    } catch (error) {
      const failure =
        error instanceof TurnFailure
          ? error
          : new TurnFailure(
              "internal_error",
              "The turn failed inside the service; see the service log.",
            );
      if (!(error instanceof TurnFailure))
        logger.error({ err: error, turnId }, "turn failed unexpectedly");
      await this.markFailed(turn, live, failure.code, failure.message, null, null, null);
    }
  }

  private isPinnedToCurrentRelease(session: SessionRow): boolean {
    const { pinned } = this.options.claude;
    return (
      session.agent_sha256 === pinned.agentSha256 && session.plugin_sha256 === pinned.pluginSha256
    );
  }

  /** Ends the project's session, visibly: in the turn record and as a `session.reset` event. */
  private async resetSession(
    turn: TurnRow,
    live: LiveTurn,
    session: SessionRow,
    reason: SessionResetReason,
  ): Promise<void> {
    const { db } = this.options;
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable("agent_sessions")
        .set({ ended_at: sql<string>`clock_timestamp()` })
        .where("id", "=", session.id)
        .execute();
      await trx
        .updateTable("turns")
        .set({ session_reset: reason })
        .where("id", "=", turn.id)
        .execute();
    });
    this.options.logger.info(
      { turnId: turn.id, sessionId: session.claude_session_id, reason },
      "session reset",
    );
    live.emit("session.reset", {
      reason,
      previousSessionId: session.claude_session_id,
      message: SESSION_RESET_MESSAGES[reason],
    });
  }

  /** Render and write the context; a failure here means nothing was spawned. */
  private async prepare(turn: TurnRow, live: LiveTurn): Promise<string> {
    try {
      const prepared = await prepareSpawnContext(this.options.db, {
        projectId: turn.project_id,
        activeMemberId: turn.member_id,
        layout: this.options.layout,
        ...(this.options.writeHooks === undefined ? {} : { hooks: this.options.writeHooks }),
      });
      live.emit("context.written", {
        layout: this.options.layout,
        files: prepared.files,
        resumeReminderBytes: prepared.resumeReminderBytes,
      });
      return prepared.project.workspace_dir;
    } catch (error) {
      if (error instanceof AppError) {
        throw new TurnFailure(
          "context_invalid",
          `The project's context cannot be rendered (${error.code}: ${error.message}) Fix the project or member data and send the message again.`,
        );
      }
      const code = (error as NodeJS.ErrnoException).code;
      this.options.logger.error({ err: error, turnId: turn.id }, "context write failed");
      throw new TurnFailure(
        "context_write_failed",
        `The context files could not be written${code === undefined ? "" : ` (${code})`}; nothing was spawned. Check that the workspace directory is writable.`,
      );
    }
  }

  /**
   * Isolation before the spawn (see workspace-guard.ts): a breach fails the turn without
   * spawning; instruction files the agent wrote inside the workspace go into an event and the
   * turn record.
   */
  private async guard(turn: TurnRow, workspaceDir: string, live: LiveTurn): Promise<void> {
    let guarded: GuardedWorkspace;
    try {
      guarded = await guardWorkspace(workspaceDir, this.options.claude.claudeConfigDir);
    } catch (error) {
      if (error instanceof WorkspaceIsolationError)
        throw new TurnFailure("workspace_not_isolated", `${error.message} Nothing was spawned.`);
      this.options.logger.error({ err: error, turnId: turn.id }, "workspace check failed");
      throw new TurnFailure(
        "workspace_check_failed",
        `${error instanceof Error ? error.message : String(error)} Nothing was spawned.`,
      );
    }
    await this.options.db
      .updateTable("turns")
      .set({ workspace_instruction_files: JSON.stringify(guarded.instructionFiles) })
      .where("id", "=", turn.id)
      .execute();
    if (guarded.instructionFiles.length > 0) {
      live.emit("workspace.instructions", {
        files: guarded.instructionFiles,
        message:
          "The workspace holds instruction files the backend did not write; Claude Code loads them for this turn. Review or remove them.",
      });
    }
  }

  /** A busy derived port is reported, never worked around: the user decides what to do. */
  private async reportBusyPorts(projectId: number, live: LiveTurn): Promise<void> {
    const ports = derivePorts(projectId);
    for (const [service, port] of [
      ["be", ports.be],
      ["fe", ports.fe],
    ] as const) {
      try {
        const probe = await probePort(port);
        if (probe.state === "busy") {
          live.emit("port.busy", {
            service,
            port,
            holder: probe.holder,
            message: `Port ${port} (the project's ${service.toUpperCase()} port, from .talkide/project.yml) is in use${
              probe.holder === null ? "" : ` by process ${probe.holder.pid}`
            }. Nothing was changed: free the port or tell Mara how to proceed.`,
          });
        }
      } catch (error) {
        this.options.logger.warn({ err: error, port }, "port probe failed");
      }
    }
  }

  private spawn(
    turn: TurnRow,
    workspaceDir: string,
    session: SessionRow | undefined,
    live: LiveTurn,
  ): Promise<ClaudeTurnResult> {
    const { claude } = this.options;
    return runClaudeTurn({
      claudePath: claude.claudePath,
      cwd: workspaceDir,
      // Print mode reads a file for every `@word` at a word start in the prompt, anywhere on
      // the server and past the tool permissions; the member's words reach Mara with `\@`
      // (README, "The member's message loads no file").
      prompt: importSafe(turn.prompt),
      // The session continues from its last successful turn: whatever a failed turn left in
      // Claude Code's transcript after that message is not part of the conversation.
      resumeSessionId: session?.claude_session_id,
      resumeAtMessageId: session?.resume_at_message_id ?? undefined,
      pluginDir: claude.pluginDir,
      agent: claude.agentName,
      extraArgs: extraClaudeArgs(claude),
      env: { ...claude.env(), [TURN_ID_VARIABLE]: turn.id },
      timeoutMs: claude.timeoutMs,
      killGraceMs: claude.killGraceMs,
      signal: this.abort.signal,
      onEvent: (event) => {
        forwardAgentEvent(event, live);
      },
    });
  }

  private async finish(
    turn: TurnRow,
    live: LiveTurn,
    result: ClaudeTurnResult,
    resumedFrom: SessionRow | undefined,
  ): Promise<void> {
    const { db } = this.options;
    const previousCumulative = resumedFrom?.cumulative_cost_usd ?? null;
    const cost = perTurnCostUsd(
      resumedFrom === undefined ? null : previousCumulative,
      result.totalCostUsd,
    );
    if (!result.ok) {
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
      const error = turnErrorFor(result);
      this.options.logger.warn(
        {
          turnId: turn.id,
          code: error.code,
          reason: result.reason,
          detail: result.message,
          stderrTail: result.stderrTail,
        },
        "claude turn failed",
      );
      await this.markFailed(
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
    await db.transaction().execute(async (trx) => {
      let id: string;
      if (resumedFrom !== undefined) {
        // A resume continues the conversation (Claude Code may announce a new id for it).
        await trx
          .updateTable("agent_sessions")
          .set({
            claude_session_id: result.sessionId,
            cumulative_cost_usd: result.totalCostUsd,
            resume_at_message_id: result.lastMessageId,
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
            claude_session_id: result.sessionId,
            cumulative_cost_usd: result.totalCostUsd,
            resume_at_message_id: result.lastMessageId,
            agent_sha256: this.options.claude.pinned.agentSha256,
            plugin_sha256: this.options.claude.pinned.pluginSha256,
          })
          .returning("id")
          .executeTakeFirstOrThrow();
        id = row.id;
      }
      await trx
        .updateTable("turns")
        .set({
          status: "succeeded",
          agent_session_id: id,
          claude_session_id: result.sessionId,
          resumed: resumedFrom !== undefined,
          result_text: result.resultText,
          cost_usd: cost,
          cumulative_cost_usd: result.totalCostUsd,
          finished_at: sql<string>`clock_timestamp()`,
        })
        .where("id", "=", turn.id)
        .execute();
    });
    this.options.logger.info({ turnId: turn.id, costUsd: cost }, "turn succeeded");
    live.emit("turn.succeeded", {
      turnId: turn.id,
      sessionId: result.sessionId,
      resumed: resumedFrom !== undefined,
      resultText: result.resultText,
      costUsd: cost,
      cumulativeCostUsd: result.totalCostUsd,
    });
    await this.release(turn.id, live);
  }

  private async markFailed(
    turn: TurnRow,
    live: LiveTurn,
    code: string,
    message: string,
    cost: number | null,
    cumulative: number | null,
    /** The session the CLI reported for this turn, even though the turn failed. */
    claudeSessionId: string | null,
  ): Promise<void> {
    await this.options.db
      .updateTable("turns")
      .set({
        status: "failed",
        claude_session_id: claudeSessionId,
        error_code: code,
        error_message: message,
        cost_usd: cost,
        cumulative_cost_usd: cumulative,
        finished_at: sql<string>`clock_timestamp()`,
      })
      .where("id", "=", turn.id)
      .execute();
    this.options.logger.warn({ turnId: turn.id, code }, "turn failed");
    live.emit("turn.failed", {
      turnId: turn.id,
      code,
      message,
      sessionId: claudeSessionId,
      costUsd: cost,
    });
    await this.release(turn.id, live);
  }

  private async release(turnId: string, live: LiveTurn): Promise<void> {
    await live.flushed();
    this.hub.close(turnId);
  }

  /**
   * Stops taking messages, aborts running turns (Claude Code and everything it started is
   * terminated) and fails the queued ones, then waits until every turn is settled and stored.
   */
  async close(): Promise<void> {
    this.closing = true;
    this.abort.abort();
    const drainers: Promise<void>[] = [];
    for (const lane of this.lanes.values()) {
      await lane.insertChain;
      if (lane.drainer !== null) drainers.push(lane.drainer);
    }
    await Promise.all(drainers);
    for (const lane of this.lanes.values()) {
      for (const turnId of lane.pending.splice(0)) {
        const live = this.hub.get(turnId);
        const turn = await this.options.db
          .selectFrom("turns")
          .selectAll()
          .where("id", "=", turnId)
          .executeTakeFirst();
        if (live !== undefined && turn !== undefined) {
          await this.markFailed(
            turn,
            live,
            "service_stopped",
            "The service stopped before this turn could run; send the message again.",
            null,
            null,
            null,
          );
        }
      }
    }
  }
}

/** Claude Code's stream, reduced to what a client of the API needs to follow a turn. */
function forwardAgentEvent(event: ClaudeStreamEvent, live: LiveTurn): void {
  if (event.type === "system" && event.subtype === "init") {
    live.emit("agent.init", {
      sessionId: typeof event.session_id === "string" ? event.session_id : null,
      model: typeof event.model === "string" ? event.model : null,
    });
    return;
  }
  const retry = apiRetryOf(event);
  if (retry !== null) {
    live.emit("agent.api_retry", apiRetryEventData(retry));
    return;
  }
  // Claude Code's stand-in for a reply (an API error, "Not logged in") is the runtime
  // talking, never Mara: the failure reaches people as the turn's error instead.
  if (event.type !== "assistant" || isSyntheticAssistantEvent(event)) return;
  const message = event.message as { content?: unknown } | undefined;
  if (!Array.isArray(message?.content)) return;
  for (const block of message.content as Array<Record<string, unknown>>) {
    if (block.type === "text" && typeof block.text === "string") {
      live.emit("agent.text", { text: block.text });
    } else if (block.type === "tool_use" && typeof block.name === "string") {
      live.emit("agent.tool_use", { name: block.name });
    }
  }
}
