import type { PromptCacheLedgerEntry } from "./prompt-cache.ts";

/**
 * What the apps' prompt-cache wire tests read from a request and its ledger entry, once:
 * the `cache_control` markers the CLI put anywhere in a body, one request's figures as a line
 * for a failure message, and where the tools and system prompt end in the cached prefix.
 */

/** Every `cache_control` marker of a request body, wherever the CLI put it, in body order. */
export function cacheControls(value: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(value)) return value.flatMap(cacheControls);
  if (value === null || typeof value !== "object") return [];
  const record = value as Record<string, unknown>;
  const own = record["cache_control"];
  const mine = own !== null && typeof own === "object" ? [own as Record<string, unknown>] : [];
  return [...mine, ...Object.values(record).flatMap(cacheControls)];
}

/** One request's figures: prompt, write, read and uncached tokens, and each breakpoint. */
export function ledgerLine(entry: PromptCacheLedgerEntry): string {
  const breakpoints = entry.breakpoints
    .map((b) => `${b.section}@${b.prefixTokens}:${b.outcome}`)
    .join(" ");
  return `prompt ${entry.promptTokens}, write ${entry.write5m + entry.write1h}, read ${entry.read}, uncached ${entry.uncached}; breakpoints ${breakpoints}`;
}

/** Tokens up to the request's last breakpoint in `system` (tools + system), or undefined. */
export function toolsAndSystemTokens(
  entry: PromptCacheLedgerEntry | undefined,
): number | undefined {
  return entry?.breakpoints.filter((b) => b.section === "system").at(-1)?.prefixTokens;
}
