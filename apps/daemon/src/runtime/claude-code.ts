import {
  type ClaudeTurnResult,
  type ColdReason,
  detectClaudeVersion,
  launchArgs,
  type OrphanWatchdog,
  type SandboxPolicy,
  type SessionPoint,
  startupFileDigests,
  TURN_MARKER_VARIABLE,
  warmContextDigest,
  WarmProcessPool,
} from "@talkide/claude-cli";
import type { ColdStart, ProcessCredential, TakenProcess } from "@talkide/turn-engine";

/**
 * The `claude-code` runtime: one print-mode turn of the Claude Code CLI per delivery, in the
 * agent's workspace, the wake prompt as one stream-json line and the standing prompt appended
 * to the system prompt (the CLI keeps a session's first system prompt, and sending it each
 * time keeps a fresh session and a resumed one identical).
 *
 * A conversation's process is kept alive after a successful turn ("warm", issue 15) and its
 * next delivery goes to it while the process would read the same things if started now and
 * the session stands where it left it; otherwise the turn starts one ("cold"). Both send the
 * same request (WIRE-NOTES.md of @talkide/claude-cli).
 */
/**
 * The tool rule of every turn: the agent runs its only output channel, the `ticlawk` command,
 * without a permission prompt (print mode denies what is not allowed). It runs code, so every
 * turn runs with Claude Code's sandbox (`turn.sandbox`, agent-sandbox.ts; issue 49).
 */
export const AGENT_ALLOWED_TOOLS: readonly string[] = ["Bash(ticlawk:*)"];

export interface ClaudeCodeRuntimeOptions {
  readonly claudePath: string;
  /** The operator's arguments, after the daemon's own. */
  readonly extraArgs?: readonly string[] | undefined;
  readonly timeoutMs: number;
  /** Grace between SIGTERM and SIGKILL of a turn's process group. */
  readonly killGraceMs?: number | undefined;
  /** Processes kept alive between a conversation's turns, at most (default 4; 0: none). */
  readonly warmProcesses?: number | undefined;
  /** A kept process idle this long is ended (default 10 minutes). */
  readonly warmIdleMs?: number | undefined;
  /** Told about every kept process that ends, and why. */
  readonly onWarmEnded?: ((key: string, reason: ColdReason) => void) | undefined;
}

export interface ClaudeCodeTurn {
  readonly cwd: string;
  readonly wakePrompt: string;
  readonly standingPrompt: string;
  readonly resumeRuntimeSessionId: string | null;
  /** The last message of the session's last successful turn (`--resume-session-at`). */
  readonly resumeAtMessageId: string | null;
  /** The whole environment of a process started for this turn. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Variables of `env` that change with every turn (message, target, turn id, per-turn
   * credentials): a kept process keeps the ones it started with, so they are not part of what
   * makes it reusable; the agent's `ticlawk` reads the current ones from the turn's env file.
   */
  readonly perTurnVariables: readonly string[];
  /** The conversation's session: one kept process per session at most. */
  readonly sessionKey: string;
  /** The instruction files inside the workspace the check before the turn found. */
  readonly instructionFiles: readonly string[];
  /** What the agent's commands may read and reach (agent-sandbox.ts). */
  readonly sandbox: SandboxPolicy;
}

export class ClaudeCodeRuntime {
  readonly name = "claude-code";
  readonly #options: ClaudeCodeRuntimeOptions;
  readonly #warm: WarmProcessPool;
  #version: { value: string | null; checkedAt: number } | null = null;

  constructor(options: ClaudeCodeRuntimeOptions) {
    this.#options = options;
    this.#warm = new WarmProcessPool({
      capacity: options.warmProcesses ?? 4,
      idleMs: options.warmIdleMs ?? 600_000,
      onEnded: (key, _process, reason) => options.onWarmEnded?.(key, reason),
    });
  }

  get claudePath(): string {
    return this.#options.claudePath;
  }

  /** The kept processes (for measuring them). */
  get warm(): WarmProcessPool {
    return this.#warm;
  }

  /**
   * `claude --version`, remembered. A failed detection is retried at most every 30 s, so a
   * binary installed while the daemon runs is noticed without a `--version` per turn.
   */
  async version(env: Readonly<Record<string, string>>): Promise<string | null> {
    const now = Date.now();
    if (
      this.#version !== null &&
      (this.#version.value !== null || now - this.#version.checkedAt < 30_000)
    ) {
      return this.#version.value;
    }
    const value = await detectClaudeVersion(this.#options.claudePath, { env }).catch(() => null);
    this.#version = { value, checkedAt: now };
    return value;
  }

  /**
   * The message of one turn to its process (the pipeline of @talkide/turn-engine takes the
   * session's kept process or starts one, and keeps or retires it after).
   */
  send(taken: TakenProcess, turn: ClaudeCodeTurn, signal: AbortSignal): Promise<ClaudeTurnResult> {
    return taken.process.runTurn({
      prompt: turn.wakePrompt,
      timeoutMs: this.#options.timeoutMs,
      signal,
    });
  }

  /** Ends every kept process; resolves when they have exited. */
  close(): Promise<void> {
    return this.#warm.close();
  }

  /**
   * The arguments of a process of the turn (resuming at `resume`; null: a new session, and the
   * warm fingerprint's arguments): the standing prompt appended to the system prompt,
   * `ticlawk` allowed, the turn's sandbox, then the operator's arguments.
   */
  #args(turn: ClaudeCodeTurn, resume: SessionPoint | null): string[] {
    return launchArgs({
      cwd: turn.cwd,
      systemPrompt: { append: turn.standingPrompt },
      resume,
      allowedTools: AGENT_ALLOWED_TOOLS,
      sandbox: turn.sandbox,
      extraArgs: this.#options.extraArgs,
    });
  }

  /** What a process of the turn reads at start besides the session: its warm fingerprint. */
  async digest(turn: ClaudeCodeTurn): Promise<string> {
    const perTurn = new Set([...turn.perTurnVariables, TURN_MARKER_VARIABLE]);
    const startupFiles = await startupFileDigests(turn.cwd, turn.instructionFiles);
    return warmContextDigest({
      args: [...this.#args(turn, null), `cwd ${turn.cwd}`],
      env: Object.fromEntries(Object.entries(turn.env).filter(([name]) => !perTurn.has(name))),
      files: startupFiles,
    });
  }

  /**
   * How a new process of the turn starts, resuming its session when it has one. `credential`
   * issues each new process its own token of the model gateway (its URL and token join the
   * process's environment, not its warm fingerprint; the engine revokes it when it exits).
   */
  coldStart(
    turn: ClaudeCodeTurn,
    watchdog: OrphanWatchdog,
    credential?: () => ProcessCredential,
  ): ColdStart {
    const resumeId = turn.resumeRuntimeSessionId;
    return {
      claudePath: this.#options.claudePath,
      cwd: turn.cwd,
      args: this.#args(
        turn,
        resumeId === null ? null : { id: resumeId, at: turn.resumeAtMessageId },
      ),
      env: turn.env,
      markerVariable: TURN_MARKER_VARIABLE,
      ...(this.#options.killGraceMs === undefined
        ? {}
        : { killGraceMs: this.#options.killGraceMs }),
      // Its processes must not outlive this daemon, however it dies.
      watchdog,
      ...(credential === undefined ? {} : { credential }),
    };
  }
}
