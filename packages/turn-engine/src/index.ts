export type { EngineLog, TurnHost } from "./host.ts";
export {
  assertDirectoriesIsolated,
  guardWorkspace,
  inspectWorkspace,
  type GuardedWorkspace,
  type IsolatedDirectory,
  type WorkspaceGuardOptions,
} from "./workspace-guard.ts";
export { materialiseTranscript, transcriptAfterTurn } from "./transcripts.ts";
export { pruneMovedWarmProcesses, WARM_PRUNE_EVERY_MS } from "./warm-prune.ts";
export { classifyTurnOutcome, type OutcomeContext, type TurnOutcome } from "./turn-outcome.ts";
export {
  keepOrRetire,
  startColdProcess,
  takeProcess,
  type ColdStart,
  type ProcessRequest,
  type TakenProcess,
  type TurnEnd,
} from "./process.ts";
