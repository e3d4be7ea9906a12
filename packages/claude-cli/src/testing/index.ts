export { DEMO_MODEL_MARK, demoModelAnswer } from "./demo-model.ts";
export { FAKE_CLAUDE_PATH, FAKE_CLAUDE_SCRIPT } from "./fake-claude-path.ts";
export {
  DEFAULT_FAKE_REPLY_TEXT,
  startFakeMessagesApi,
  type FakeContentBlock,
  type FakeMessagesApi,
  type FakeMessagesApiOptions,
  type FakeReply,
  type FakeReplyFunction,
  type RecordedRequest,
} from "./fake-messages-api.ts";
export {
  billedInputTokens,
  estimateBlockTokens,
  idealBilledInputTokens,
  minimumCacheableTokens,
  type CacheBreakpoint,
  type CacheFigures,
  type CacheTtl,
  type PromptCacheLedgerEntry,
  type PromptSection,
} from "./prompt-cache.ts";
export { cacheControls, ledgerLine, toolsAndSystemTokens } from "./prompt-cache-wire.ts";
export { readFakeClaudeRecords, type FakeClaudeRecord } from "./fake-claude-records.ts";
export {
  REAL_CLAUDE_PATH,
  REAL_CLAUDE_VERSION,
  realClaudeEnv,
  realClaudeSuiteCanRun,
  sandboxSuiteCanRun,
  resolveRealClaudePath,
  type RealClaudeEnvOptions,
} from "./real-claude.ts";
export {
  instructionReminders,
  lastUserPrompt,
  lastUserTexts,
  newInstructionReminders,
  parseInstructionReminder,
  systemBlocks,
  systemPromptText,
  wireMessages,
  type InstructionFile,
  type InstructionReminder,
  type TextBlock,
  type WireMessage,
} from "./wire.ts";
export {
  classifyRequests,
  manifestReport,
  readPins,
  RUNTIME_DYNAMIC_PATTERNS,
  type ClassifiedBlock,
  type ManifestInput,
  type OurText,
  type RuntimePin,
  type RuntimePins,
  type UnclassifiedBlock,
  type WireManifest,
} from "./wire-manifest.ts";
export { processesWithMarker, watchdogOf } from "./processes.ts";
export { runOneTurn, type OneTurnOptions } from "./one-turn.ts";
export {
  CACHE_ANCHORS,
  costTable,
  layoutNotes,
  stepCost,
  stepsTheProjectDecides,
  totalRatio,
  type CostStep,
  type StepCost,
} from "./cache-cost-report.ts";
