import {
  detectClaudeVersion,
  isUnknownSessionFailure,
  runClaudeTurn,
  type ClaudeTurnResult,
} from "@talkide/claude-cli";

/**
 * The `claude-code` runtime: one print-mode turn of the Claude Code CLI per delivery, in
 * the agent's workspace, the wake prompt on stdin and the standing prompt appended to the
 * system prompt on every turn (the CLI keeps a session's first system prompt, and sending
 * it each time keeps a fresh session and a resumed one identical).
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
}

export interface ClaudeCodeTurn {
  readonly cwd: string;
  readonly wakePrompt: string;
  readonly standingPrompt: string;
  readonly resumeRuntimeSessionId: string | null;
  /** The last message of the session's last successful turn (`--resume-session-at`). */
  readonly resumeAtMessageId: string | null;
  readonly env: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
}

export class ClaudeCodeRuntime {
  readonly name = "claude-code";
  readonly #options: ClaudeCodeRuntimeOptions;
  #version: { value: string | null; checkedAt: number } | null = null;

  constructor(options: ClaudeCodeRuntimeOptions) {
    this.#options = options;
  }

  get claudePath(): string {
    return this.#options.claudePath;
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

  async runTurn(turn: ClaudeCodeTurn): Promise<ClaudeTurnResult> {
    return runClaudeTurn({
      claudePath: this.#options.claudePath,
      cwd: turn.cwd,
      prompt: turn.wakePrompt,
      appendSystemPrompt: turn.standingPrompt,
      ...(turn.resumeRuntimeSessionId === null
        ? {}
        : {
            resumeSessionId: turn.resumeRuntimeSessionId,
            ...(turn.resumeAtMessageId === null
              ? {}
              : { resumeAtMessageId: turn.resumeAtMessageId }),
          }),
      extraArgs: [...CLAUDE_CODE_EXTRA_ARGS, ...(this.#options.extraArgs ?? [])],
      env: turn.env,
      timeoutMs: this.#options.timeoutMs,
      killGraceMs: this.#options.killGraceMs,
      signal: turn.signal,
    });
  }

  /** The resumed session is unknown to the CLI (its transcript is gone): start fresh. */
  isUnknownSession(result: ClaudeTurnResult): boolean {
    return isUnknownSessionFailure(result);
  }
}
