export {
  runTurnPipeline,
  type SessionEnd,
  type TurnAttempt,
  type TurnEnd,
  type TurnContext,
  type TurnPipelineHost,
  type TurnProgress,
} from "./pipeline.ts";
export type { HeldEvents, TurnEvents } from "./beside.ts";
export { chooseSession, isPinnedTo, pinnedTo } from "./session-choice.ts";
export { TurnFailure } from "./turn-failure.ts";
export {
  assertDirectoriesIsolated,
  inspectWorkspace,
  type GuardedWorkspace,
} from "./workspace-guard.ts";
export { materialiseTranscript, transcriptAfterTurn } from "./transcripts.ts";
export { pruneMovedWarmProcesses } from "./warm-prune.ts";
export type { TurnOutcome } from "./turn-outcome.ts";
export type { ColdStart, ProcessCredential, TakenProcess } from "./process.ts";
export {
  sessionCacheReuseOf,
  usageFromColumns,
  type SessionUsageColumns,
  type UsageColumns,
} from "./usage-columns.ts";
export { ENGINE_MIGRATIONS } from "./store/migrations.ts";
export type { EngineTables, RunOutcome } from "./store/tables.ts";
export type { HostSteps } from "./store/host-steps.ts";
export {
  deleteRunsOf,
  finishRun,
  processMarkersOf,
  recordRunProcess,
  runsOf,
  startRun,
  turnIdsOfSession,
  type RunEnd,
  type RunEnded,
  type RunFigures,
  type RunProcess,
  type RunRow,
  type RunStart,
  type RunSuccess,
  type RunTotals,
} from "./store/run-store.ts";
export {
  deleteSessionsOf,
  endSession,
  endSessionsOf,
  engineDb,
  lastEndReason,
  listSessions,
  loadTranscript,
  openSession,
  pointOfSession,
  recordSuccess,
  repinSession,
  sessionById,
  sessionPoints,
  startSession,
  transcriptParts,
  type EngineDb,
  type SessionFilter,
  type SessionRow,
  type SessionScope,
  type SessionSuccess,
  type SuccessRecorded,
} from "./store/session-store.ts";
