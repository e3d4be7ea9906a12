/**
 * What one request to the Messages API used, as the provider reported it in the response's
 * `usage`: uncached input, prompt-cache writes split by their lifetime, cache reads and output.
 */
export interface RequestUsage {
  /** `input_tokens`: input read uncached (after the last cache breakpoint, or none). */
  readonly inputTokens: number;
  /** Written to the prompt cache with the 5-minute lifetime (`ephemeral_5m_input_tokens`). */
  readonly cacheWrite5mTokens: number;
  /** Written to the prompt cache with the 1-hour lifetime (`ephemeral_1h_input_tokens`). */
  readonly cacheWrite1hTokens: number;
  /** `cache_read_input_tokens`. */
  readonly cacheReadTokens: number;
  /** `output_tokens`. */
  readonly outputTokens: number;
  /** `server_tool_use.web_search_requests`: priced per search. */
  readonly webSearchRequests: number;
  /** `inference_geo` when the provider reported one (`"us"` costs 1.1×, as the CLI computes). */
  readonly inferenceGeo: string | null;
}

export const NO_USAGE: RequestUsage = {
  inputTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  cacheReadTokens: 0,
  outputTokens: 0,
  webSearchRequests: 0,
  inferenceGeo: null,
};

/** Every input token of a request (what its prompt weighed). */
export function promptTokens(usage: RequestUsage): number {
  return (
    usage.inputTokens + usage.cacheWrite5mTokens + usage.cacheWrite1hTokens + usage.cacheReadTokens
  );
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Folds one `usage` object of the API into what is known so far. A streamed response reports
 * usage twice: in `message_start` (the input side, output 1) and in `message_delta` (the final
 * output count, and by now the input figures again): a later figure replaces an earlier one,
 * an absent one keeps it. The cache write is split by lifetime from `cache_creation`; without
 * that split, `cache_creation_input_tokens` counts as 5-minute writes (the API's default
 * lifetime), and a split that does not add up to the total puts the rest under 5 minutes,
 * as Claude Code's own cost computation does.
 */
export function foldUsage(known: RequestUsage, usage: unknown): RequestUsage {
  const u = record(usage);
  if (u === undefined) return known;
  const split = record(u["cache_creation"]);
  const total = count(u["cache_creation_input_tokens"]);
  let write5m = known.cacheWrite5mTokens;
  let write1h = known.cacheWrite1hTokens;
  if (split !== undefined) {
    const oneHour = count(split["ephemeral_1h_input_tokens"]) ?? 0;
    const fiveMinutes = count(split["ephemeral_5m_input_tokens"]) ?? 0;
    write1h = total === undefined ? oneHour : Math.min(oneHour, total);
    write5m = total === undefined ? fiveMinutes : total - write1h;
  } else if (total !== undefined) {
    // The same total as before keeps the split a `message_start` reported.
    if (total !== known.cacheWrite5mTokens + known.cacheWrite1hTokens) {
      write1h = Math.min(known.cacheWrite1hTokens, total);
      write5m = total - write1h;
    }
  }
  const serverTools = record(u["server_tool_use"]);
  const geo = u["inference_geo"];
  return {
    inputTokens: count(u["input_tokens"]) ?? known.inputTokens,
    cacheWrite5mTokens: write5m,
    cacheWrite1hTokens: write1h,
    cacheReadTokens: count(u["cache_read_input_tokens"]) ?? known.cacheReadTokens,
    outputTokens: count(u["output_tokens"]) ?? known.outputTokens,
    webSearchRequests: count(serverTools?.["web_search_requests"]) ?? known.webSearchRequests,
    inferenceGeo: typeof geo === "string" ? geo : known.inferenceGeo,
  };
}
