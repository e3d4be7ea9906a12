export { findBundledClaudePath } from "./bundled-claude.ts";
export { buildClaudeArgs, MAX_ARGUMENT_BYTES, type ClaudeArgsOptions } from "./claude-args.ts";
export { definedEntries } from "./child-env.ts";
export {
  launchArgs,
  launchEnv,
  type LaunchArgsRecipe,
  type LaunchEnvRecipe,
} from "./launch-recipe.ts";
export { allInputTokens, cacheReuse, perTurnCostUsd } from "./cost.ts";
export { ClaudeCliError, type ClaudeCliErrorCode } from "./errors.ts";
export type {
  ClaudeTurnFailure,
  ClaudeTurnFailureReason,
  ClaudeTurnResult,
  ClaudeTurnSuccess,
  RuntimeErrorInfo,
  RuntimeErrorKind,
} from "./turn-result.ts";
export { killLeftoverProcesses } from "./leftover-processes.ts";
export { TURN_MARKER_VARIABLE, TURN_MARKER_VARIABLES } from "./turn-marker.ts";
export { startOrphanWatchdog, type OrphanWatchdog } from "./orphan-watchdog.ts";
export {
  WarmProcessPool,
  startupFileDigests,
  warmContextDigest,
  warmFingerprint,
  type Checkout,
  type ColdReason,
  type SessionPoint,
  type SessionPoints,
  type WarmPoolOptions,
} from "./warm-pool.ts";
export { WarmClaudeProcess } from "./warm-process.ts";
export {
  DEFAULT_KILL_GRACE_MS,
  type WarmProcessOptions,
  type WarmTurnOptions,
} from "./turn-options.ts";
export {
  MAX_TRANSCRIPT_PARTS,
  planTranscriptWrite,
  readRuntimeTranscript,
  writeRuntimeTranscript,
  type RuntimeTranscript,
  type TranscriptMark,
} from "./runtime-transcript.ts";
export { TranscriptLedger, type TranscriptPlan } from "./transcript-ledger.ts";
export {
  planTurnTranscriptWrite,
  readTurnTranscript,
  wholeTurnTranscript,
  type TurnTranscript,
} from "./turn-transcript.ts";
export { hasNoInputForClaude } from "./prompt-input.ts";
export { isUnknownSessionFailure } from "./unknown-session.ts";
export { isSyntheticAssistantEvent, turnErrorFor, type TurnError } from "./turn-error.ts";
export { apiRetryOf, type ApiRetry, type TokenUsage } from "./stream-json.ts";
export type { ClaudeResultEvent, ClaudeStreamEvent } from "./stream-json.ts";
export {
  detectClaudeVersion,
  parseClaudeVersion,
  type DetectClaudeVersionOptions,
} from "./version.ts";
export {
  changedInstructionReminder,
  changedInstructionReminderBytes,
  type ChangedInstructionFile,
} from "./instruction-reminder.ts";
export {
  assertWorkspaceIsolated,
  ensureWorkspaceRepository,
  findIsolationBreaches,
  findWorkspaceInstructionFiles,
  HERMETIC_CLAUDE_ENV,
  MANAGED_CLAUDE_DIR,
  WorkspaceIsolationError,
  type IsolationBreach,
  type IsolationOptions,
  type IsolationSource,
} from "./workspace-isolation.ts";
export {
  assertSandboxAvailable,
  runsCode,
  sandboxSettings,
  SandboxUnavailableError,
  type SandboxPolicy,
} from "./sandbox.ts";
export { PROMPT_CACHE_TTLS, promptCacheTtlEnv, type PromptCacheTtl } from "./prompt-cache-ttl.ts";
export { cliFallbackIn, cliFallbackOfTurn, type CliFallback } from "./cli-fallback.ts";
