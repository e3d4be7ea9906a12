export { findBundledClaudePath } from "./bundled-claude.ts";
export { buildClaudeArgs, MAX_ARGUMENT_BYTES, type ClaudeArgsOptions } from "./claude-args.ts";
export { perTurnCostUsd } from "./cost.ts";
export { ClaudeCliError, type ClaudeCliErrorCode } from "./errors.ts";
export {
  DEFAULT_KILL_GRACE_MS,
  runClaudeTurn,
  type ClaudeTurnFailure,
  type ClaudeTurnFailureReason,
  type ClaudeTurnResult,
  type ClaudeTurnSuccess,
  type RunClaudeTurnOptions,
} from "./run-claude-turn.ts";
export { isUnknownSessionFailure } from "./unknown-session.ts";
export { apiRetryOf, type ApiRetry } from "./stream-json.ts";
export type { ClaudeResultEvent, ClaudeStreamEvent } from "./stream-json.ts";
export {
  detectClaudeVersion,
  parseClaudeVersion,
  type DetectClaudeVersionOptions,
} from "./version.ts";
