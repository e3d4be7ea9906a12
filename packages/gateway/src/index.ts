/**
 * The LLM gateway a service runs between its `claude` processes and the model provider
 * (issue 51): per-process credentials instead of the provider's key, byte-exact forwarding,
 * exact usage and cost per request, spend and token limits, and why the prompt cache missed.
 */
export {
  REFUSAL_STATUS,
  startGateway,
  type Gateway,
  type GatewayOptions,
  type MissNamer,
  type ProviderCredential,
  type UsageScope,
} from "./gateway.ts";
export type { GatewayCredential, TurnAttachment } from "./credentials.ts";
export { GATEWAY_MIGRATIONS } from "./migrations.ts";
export {
  explainCacheMiss,
  promptShapeOf,
  type ChangedText,
  type ChangePosition,
  type MissExplanation,
  type MissReason,
} from "./cache-miss.ts";
export {
  DEFAULT_CAPS,
  DEFAULT_LIMITS,
  limitSettingName,
  limitSettings,
  type LimitReached,
  type LimitSettings,
} from "./limits.ts";
export {
  DEFAULT_PRICES,
  priceOf,
  requestCostUsd,
  type ModelPrice,
  type PriceTable,
} from "./prices.ts";
export { gatewaySettingsFromEnv, PRICES_FILE_SETTING, type GatewaySettings } from "./settings.ts";
export type { ProjectTotals, TurnUsage } from "./store.ts";
export type { RequestUsage } from "./usage.ts";
export { usagePeriods, type PeriodUsage } from "./usage-periods.ts";
