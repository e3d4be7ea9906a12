/** Stable codes for options a caller got wrong (nothing is spawned when one is thrown). */
export type ClaudeCliErrorCode = "invalid_option" | "argument_too_long" | "version_unreadable";

/**
 * Thrown for a caller's mistake (bad options) or by `detectClaudeVersion`; never for the
 * runtime failures of a turn, which `WarmClaudeProcess.runTurn` returns as a result instead.
 */
export class ClaudeCliError extends Error {
  readonly code: ClaudeCliErrorCode;
  /** The option at fault, e.g. `resumeSessionId` or `extraArgs[2]`. */
  readonly path: string;

  constructor(code: ClaudeCliErrorCode, path: string, message: string) {
    super(message);
    this.name = "ClaudeCliError";
    this.code = code;
    this.path = path;
  }
}
