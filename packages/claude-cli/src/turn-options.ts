import type { ClaudeArgsOptions } from "./claude-args.ts";
import { ClaudeCliError } from "./errors.ts";
import { hasNoInputForClaude } from "./prompt-input.ts";
import type { ClaudeStreamEvent } from "./stream-json.ts";

// The options of one turn and their validation: invalid options throw before anything runs.

export interface RunClaudeTurnOptions extends ClaudeArgsOptions {
  /** Absolute path of the `claude` executable, or a bare name looked up on `env.PATH`. */
  readonly claudePath: string;
  /** Working directory of the turn (the project or agent workspace); must exist. */
  readonly cwd: string;
  /** The user message of the turn, written to the child's standard input. */
  readonly prompt: string;
  /**
   * The child's complete environment. Nothing is inherited from this process, so what the
   * agent sees is exactly what the caller chose (keys with `undefined` are left out).
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The turn ends with reason `timeout` when no result arrived within this many ms. */
  readonly timeoutMs: number;
  /** Aborting ends the turn with reason `aborted` (unless its result already arrived). */
  readonly signal?: AbortSignal | undefined;
  /**
   * Called once the child runs, with its pid, which is also its process-group id. A service
   * that can be killed mid-turn stores it, so that after a restart it can end a turn that
   * outlived it (`process.kill(-pid, "SIGKILL")`) before running that turn again: the group is
   * detached, so it survives the death of its parent.
   */
  readonly onSpawn?: ((pid: number) => void) | undefined;
  /** Called with every parsed event as it arrives; a throw ends the turn and rejects (so does a throw in `onSpawn`). */
  readonly onEvent?: ((event: ClaudeStreamEvent) => void) | undefined;
  /**
   * How long a terminated process group gets between SIGTERM and SIGKILL, and how long the
   * CLI may linger after its result event before it is terminated. Default 2000 ms.
   */
  readonly killGraceMs?: number | undefined;
}

export const DEFAULT_KILL_GRACE_MS = 2000;
/** setTimeout fires at once for delays above 2^31-1 ms; refuse them instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function validateTurnOptions(options: RunClaudeTurnOptions): void {
  const nonEmpty = (path: string, value: unknown): void => {
    if (typeof value !== "string" || value === "") {
      throw new ClaudeCliError("invalid_option", path, `${path} must be a non-empty string.`);
    }
  };
  nonEmpty("claudePath", options.claudePath);
  nonEmpty("cwd", options.cwd);
  if (typeof options.prompt !== "string" || hasNoInputForClaude(options.prompt)) {
    throw new ClaudeCliError(
      "invalid_option",
      "prompt",
      "prompt must contain text: Claude Code refuses a print-mode turn without input.",
    );
  }
  if (typeof options.env !== "object" || (options.env as unknown) === null) {
    throw new ClaudeCliError("invalid_option", "env", "env must be an object of strings.");
  }
  const timer = (path: string, value: unknown, min: number): void => {
    if (
      typeof value !== "number" ||
      !Number.isInteger(value) ||
      value < min ||
      value > MAX_TIMER_MS
    ) {
      throw new ClaudeCliError(
        "invalid_option",
        path,
        `${path} must be a whole number of milliseconds from ${min} to ${MAX_TIMER_MS}.`,
      );
    }
  };
  timer("timeoutMs", options.timeoutMs, 1);
  if (options.killGraceMs !== undefined) timer("killGraceMs", options.killGraceMs, 0);
}
