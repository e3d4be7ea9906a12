import { cacheReuse, type TokenUsage } from "@talkide/claude-cli";

/**
 * How a run's tokens are stored (`engine_runs`): four nullable integer columns, and the
 * session's running totals as of that run (bigint, so a driver may read them as decimal
 * strings). One shape, written by the run store and read by both hosts' views.
 */
export interface UsageColumns {
  readonly input_tokens: number | null;
  readonly cache_creation_input_tokens: number | null;
  readonly cache_read_input_tokens: number | null;
  readonly output_tokens: number | null;
}

export interface SessionUsageColumns {
  readonly session_input_tokens: string | number | null;
  readonly session_cache_read_tokens: string | number | null;
}

/** A turn's token columns, all null when the CLI reported none. */
export function usageColumns(usage: TokenUsage | null): UsageColumns {
  return {
    input_tokens: usage?.inputTokens ?? null,
    cache_creation_input_tokens: usage?.cacheCreationInputTokens ?? null,
    cache_read_input_tokens: usage?.cacheReadInputTokens ?? null,
    output_tokens: usage?.outputTokens ?? null,
  };
}

/** The turn's tokens as stored: all four, or none (none reported, or a row from before them). */
export function usageFromColumns(row: UsageColumns): TokenUsage | null {
  const {
    input_tokens: inputTokens,
    cache_creation_input_tokens: cacheCreationInputTokens,
    cache_read_input_tokens: cacheReadInputTokens,
    output_tokens: outputTokens,
  } = row;
  if (
    inputTokens === null ||
    cacheCreationInputTokens === null ||
    cacheReadInputTokens === null ||
    outputTokens === null
  ) {
    return null;
  }
  return { inputTokens, cacheCreationInputTokens, cacheReadInputTokens, outputTokens };
}

/** The session's cache reuse as of a turn, from the running totals its row carries. */
export function sessionCacheReuseOf(row: SessionUsageColumns): number | null {
  return row.session_input_tokens === null || row.session_cache_read_tokens === null
    ? null
    : cacheReuse(Number(row.session_cache_read_tokens), Number(row.session_input_tokens));
}
