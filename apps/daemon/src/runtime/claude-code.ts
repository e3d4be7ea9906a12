import {
  buildClaudeArgs,
  type ClaudeTurnResult,
  type ColdReason,
  detectClaudeVersion,
  type OrphanWatchdog,
  startupFileDigests,
  warmContextDigest,
  WarmProcessPool,
} from "@talkide/claude-cli";
import { keepOrRetire, takeProcess, type TakenProcess } from "@talkide/turn-engine";
import { TURN_ID_VARIABLE } from "./orphans.ts";

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
 * Arguments every turn gets after the standing prompt:
 * - `--exclude-dynamic-system-prompt-sections` moves the CLI's per-project memory section out
 *   of the system prompt (into the first user message), so the system blocks are the same
 *   bytes for every agent and workspace (prompt caching; see claude-cli's WIRE-NOTES.md);
 * - `--allowedTools Bash(ticlawk:*)` lets the agent run its only output channel, the
 *   `ticlawk` command, without a permission prompt (print mode denies what is not allowed).
 */
export const CLAUDE_CODE_EXTRA_ARGS: readonly string[] = [
  "--exclude-dynamic-system-prompt-sections",
  "--allowedTools",
  "Bash(ticlawk:*)",
];

export interface ClaudeCodeRuntimeOptions {
  readonly claudePath: string;
  /** The operator's arguments, after `CLAUDE_CODE_EXTRA_ARGS`. */
  readonly extraArgs?: readonly string[] | undefined;
  readonly timeoutMs: number;
  /** Grace between SIGTERM and SIGKILL of a turn's process group. */
  readonly killGraceMs?: number | undefined;
  /** Processes kept alive between a conversation's turns, at most (default 4; 0: none). */
  readonly warmProcesses?: number | undefined;
  /** A kept process idle this long is ended (default 10 minutes). */
  readonly warmIdleMs?: number | undefined;
  /** Told about every kept process that ends, and why. */
  readonly onWarmEnded?: ((sessionKey: string, reason: ColdReason) => void) | undefined;
}

/** How a turn's process started, told before its message is sent. */
export interface TurnProcessInfo {
  readonly kind: "warm" | "cold";
  readonly coldReason: ColdReason | null;
  /** The `TICLAWK_TURN_ID` its processes carry: the id of the turn that started it. */
  readonly marker: string;
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
  /** This turn's id. */
  readonly turnId: string;
  readonly watchdog: OrphanWatchdog;
  readonly signal: AbortSignal;
  /**
   * Called once it is decided that the turn needs a new process, before anything is done for
   * it (waiting for a kept one to end, the transcript, the spawn): what must exist before a
   * process can act for the turn (the turn's row) is stored here. Not called for a warm turn.
   */
  readonly beforeColdStart?: (() => Promise<void>) | undefined;
  /** How the turn's process started, before its message is sent (warm or cold). */
  readonly onProcess?: ((info: TurnProcessInfo) => Promise<void>) | undefined;
  /**
   * Called before a process is started to resume the session (not for a warm turn): puts the
   * session's stored transcript where the CLI reads it at start.
   */
  readonly beforeColdResume?: (() => Promise<void>) | undefined;
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
   * One turn: in the session's kept process when nothing it read at start changed and the
   * session stands where that process left it, else in a new process (resuming the session,
   * exactly as a process per turn would). A successful turn keeps its process for the next.
   */
  async runTurn(turn: ClaudeCodeTurn): Promise<ClaudeTurnResult> {
    const digest = await this.#digest(turn);
    const taken = await this.#take(turn, digest);
    const separateTurnMarker = taken.marker !== turn.turnId;
    // The turn's own id reaches the processes `ticlawk` starts (from the turn's env file).
    if (separateTurnMarker) turn.watchdog.track(turn.turnId);
    try {
      await turn.onProcess?.({
        kind: taken.kind,
        coldReason: taken.coldReason,
        marker: taken.marker,
      });
      const result = await taken.process.runTurn({
        prompt: turn.wakePrompt,
        timeoutMs: this.#options.timeoutMs,
        signal: turn.signal,
      });
      keepOrRetire(this.#warm, turn.sessionKey, taken, result, digest);
      return result;
    } catch (error) {
      keepOrRetire(this.#warm, turn.sessionKey, taken, { ok: false }, digest);
      throw error;
    } finally {
      if (separateTurnMarker) turn.watchdog.untrack(turn.turnId);
    }
  }

  /** Ends every kept process; resolves when they have exited. */
  close(): Promise<void> {
    return this.#warm.close();
  }

  #baseArgs(turn: ClaudeCodeTurn): string[] {
    return buildClaudeArgs({
      appendSystemPrompt: turn.standingPrompt,
      extraArgs: [...CLAUDE_CODE_EXTRA_ARGS, ...(this.#options.extraArgs ?? [])],
    });
  }

  async #digest(turn: ClaudeCodeTurn): Promise<string> {
    const perTurn = new Set([...turn.perTurnVariables, TURN_ID_VARIABLE]);
    const startupFiles = await startupFileDigests(turn.cwd, turn.instructionFiles);
    return warmContextDigest({
      args: [...this.#baseArgs(turn), `cwd ${turn.cwd}`],
      env: Object.fromEntries(Object.entries(turn.env).filter(([name]) => !perTurn.has(name))),
      files: startupFiles,
    });
  }

  /** The session's kept process, or a new one (the engine's process stage). */
  #take(turn: ClaudeCodeTurn, digest: string): Promise<TakenProcess> {
    const resumeId = turn.resumeRuntimeSessionId;
    return takeProcess(this.#warm, {
      key: turn.sessionKey,
      point: resumeId === null ? null : { id: resumeId, at: turn.resumeAtMessageId },
      digest,
      turnId: turn.turnId,
      cold: {
        claudePath: this.#options.claudePath,
        cwd: turn.cwd,
        args: buildClaudeArgs({
          appendSystemPrompt: turn.standingPrompt,
          ...(resumeId === null
            ? {}
            : {
                resumeSessionId: resumeId,
                ...(turn.resumeAtMessageId === null
                  ? {}
                  : { resumeAtMessageId: turn.resumeAtMessageId }),
              }),
          extraArgs: [...CLAUDE_CODE_EXTRA_ARGS, ...(this.#options.extraArgs ?? [])],
        }),
        env: turn.env,
        markerVariable: TURN_ID_VARIABLE,
        ...(this.#options.killGraceMs === undefined
          ? {}
          : { killGraceMs: this.#options.killGraceMs }),
        // Its processes must not outlive this daemon, however it dies.
        watchdog: turn.watchdog,
      },
      beforeColdStart: turn.beforeColdStart,
      beforeColdResume: turn.beforeColdResume,
    });
  }
}
