/**
 * How long the Messages API keeps the CLI's prompt cache: `5m` (the API's default) or `1h`.
 * With gaps of minutes between a person's messages, a 5-minute cache has expired by the next
 * turn and the whole prompt is written again; a 1-hour cache is read instead (apps/be
 * BENCHMARKS.md, "The cache's lifetime": −77% billed input tokens for a session with 1–15
 * minute gaps, ~27% more for a conversation without gaps).
 */
export const PROMPT_CACHE_TTLS = ["5m", "1h"] as const;

export type PromptCacheTtl = (typeof PROMPT_CACHE_TTLS)[number];

/**
 * The CLI's environment for a cache lifetime. `1h` sets `ENABLE_PROMPT_CACHING_1H=1`, which
 * changes more than the `cache_control` ttl: the `anthropic-beta` header gains
 * `extended-cache-ttl-2025-04-11`, and the ScheduleWakeup tool's description speaks of a
 * 1-hour TTL instead of the default 5-minute one. `5m` adds nothing: the requests are the
 * CLI's own defaults, byte for byte.
 */
export function promptCacheTtlEnv(ttl: PromptCacheTtl): Readonly<Record<string, string>> {
  return ttl === "1h" ? { ENABLE_PROMPT_CACHING_1H: "1" } : {};
}
