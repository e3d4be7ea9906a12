import { ClaudeCliError } from "./errors.ts";
import type { OrphanWatchdog } from "./orphan-watchdog.ts";
import { hasNoInputForClaude } from "./prompt-input.ts";
import type { ClaudeStreamEvent } from "./stream-json.ts";

// The options of a Claude Code process and of one turn in it, and their validation: a
// caller's mistake throws a `ClaudeCliError` before anything is spawned or sent.

export interface WarmProcessOptions {
  /** Absolute path of the `claude` executable, or a bare name looked up on `env.PATH`. */
  readonly claudePath: string;
  /** Working directory of the process (the project or agent workspace); must exist. */
  readonly cwd: string;
  /** The cold path's arguments (`buildClaudeArgs`); `--input-format stream-json` is added. */
  readonly args: readonly string[];
  /**
   * The child's complete environment. Nothing is inherited from this process, so what the
   * agent sees is exactly what the caller chose (keys with `undefined` are left out).
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Grace between SIGTERM and SIGKILL when the process is ended (default 2000 ms). */
  readonly killGraceMs?: number;
  /**
   * The caller's name for this process (the marker value its environment carries, say), kept
   * for whoever later finds it in a pool.
   */
  readonly tag?: string;
  /**
   * Tracks `tag` as the marker of this process's group for as long as it lives, so the
   * service's orphan watchdog ends it if the service dies (see orphan-watchdog.ts).
   */
  readonly watchdog?: Pick<OrphanWatchdog, "track" | "untrack">;
}

export interface WarmTurnOptions {
  /** The user message of the turn, sent as one stream-json line on the process's input. */
  readonly prompt: string;
  /** The turn ends with reason `timeout` when no result arrived within this many ms. */
  readonly timeoutMs: number;
  /** Aborting ends the turn with reason `aborted` (unless its result already arrived). */
  readonly signal?: AbortSignal | undefined;
  /** Called with every parsed event as it arrives; a throw does not change the outcome. */
  readonly onEvent?: ((event: ClaudeStreamEvent) => void) | undefined;
}

export const DEFAULT_KILL_GRACE_MS = 2000;
/** setTimeout fires at once for delays above 2^31-1 ms; refuse them instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function validateProcessOptions(options: WarmProcessOptions): void {
  nonEmpty("claudePath", options.claudePath);
  nonEmpty("cwd", options.cwd);
  if (typeof options.env !== "object" || (options.env as unknown) === null) {
    throw new ClaudeCliError("invalid_option", "env", "env must be an object of strings.");
  }
  if (options.killGraceMs !== undefined) wholeMs("killGraceMs", options.killGraceMs, 0);
}

export function validateTurnOptions(options: WarmTurnOptions): void {
  const problem = turnOptionsProblem(options);
  if (problem !== null) throw problem;
}

/** What is wrong with a turn's options, or null: `runTurn` rejects with it. */
export function turnOptionsProblem(options: WarmTurnOptions): ClaudeCliError | null {
  if (typeof options.prompt !== "string" || hasNoInputForClaude(options.prompt)) {
    return new ClaudeCliError(
      "invalid_option",
      "prompt",
      "prompt must contain text: Claude Code refuses a turn without input.",
    );
  }
  return wholeMsProblem("timeoutMs", options.timeoutMs, 1);
}

function nonEmpty(path: string, value: unknown): void {
  if (typeof value !== "string" || value === "") {
    throw new ClaudeCliError("invalid_option", path, `${path} must be a non-empty string.`);
  }
}

function wholeMs(path: string, value: unknown, min: number): void {
  const problem = wholeMsProblem(path, value, min);
  if (problem !== null) throw problem;
}

function wholeMsProblem(path: string, value: unknown, min: number): ClaudeCliError | null {
  if (
    typeof value !== "number" ||
    !Number.isInteger(value) ||
    value < min ||
    value > MAX_TIMER_MS
  ) {
    return new ClaudeCliError(
      "invalid_option",
      path,
      `${path} must be a whole number of milliseconds from ${min} to ${MAX_TIMER_MS}.`,
    );
  }
  return null;
}
