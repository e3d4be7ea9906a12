export { DEFAULT_PORT, loadConfig, type DaemonConfig } from "./config.ts";
export { startDaemon, type RunningDaemon, type StartDaemonOptions } from "./daemon.ts";
export type { DaemonContext, DaemonExtension, TurnEnvContext } from "./extension.ts";
export { ConfigError, type MigrationFolder } from "@talkide/service-kit";
export type { DaemonDb, DaemonTables, DeliveryState, TurnState } from "./db/schema.ts";
export type { DaemonEvent, DaemonEventType, EventBus } from "./events/bus.ts";
export { IntakeError, type IntakeResult } from "./intake/accept-delivery.ts";
export { buildAgentEnv, type TurnIdentity } from "./runtime/agent-env.ts";
export {
  AGENT_ALLOWED_TOOLS,
  ClaudeCodeRuntime,
  type ClaudeCodeRuntimeOptions,
  type ClaudeCodeTurn,
} from "./runtime/claude-code.ts";
