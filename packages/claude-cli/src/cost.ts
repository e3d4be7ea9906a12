/**
 * Claude Code reports `total_cost_usd` cumulatively for a session (a resumed turn continues
 * the session's total), so a turn's own cost is the difference to the previous turn's total.
 *
 * - `previousCumulative === null`: first turn of the session, its cost is the whole total.
 * - `cumulative === null` (no result, or no cost reported): unknown.
 * - `cumulative < previousCumulative`: the totals belong to different sessions; unknown.
 * - Inputs that are negative or not finite: unknown.
 *
 * The difference is rounded like every amount (see `roundUsd`), so binary floating-point
 * noise (0.150872 − 0.100552 = 0.05032000000000001) does not leak into stored amounts.
 */
export function perTurnCostUsd(
  previousCumulative: number | null,
  cumulative: number | null,
): number | null {
  if (cumulative === null || !isUsableAmount(cumulative)) return null;
  if (previousCumulative === null) return cumulative;
  if (!isUsableAmount(previousCumulative) || cumulative < previousCumulative) return null;
  return roundUsd(cumulative - previousCumulative);
}

/**
 * An amount in USD as the decimal it stands for, to 1e-10 USD: the CLI sums its costs in
 * binary floating point and reports totals such as 0.00030000000000000003; rounded, that is
 * 0.0003, and it prints and stores as such. (An integer divided by 1e10 is the double nearest
 * to that decimal, so the shortest form JSON gives it has no noise digits.)
 */
export function roundUsd(amount: number): number {
  return Math.round(amount * 1e10) / 1e10;
}

function isUsableAmount(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}

/** Every input token of a turn: read uncached, written to the prompt cache, or read from it. */
export function allInputTokens(usage: {
  readonly inputTokens: number;
  readonly cacheCreationInputTokens: number;
  readonly cacheReadInputTokens: number;
}): number {
  return usage.inputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
}

/**
 * The share of input tokens read from the prompt cache (`cacheRead / allInput`, 0..1, to four
 * decimals), over whatever span the two counts cover (a session so far); null when there was
 * no input to share, or the counts cannot be a span's (negative, not finite, more read than
 * input).
 */
export function cacheReuse(cacheReadTokens: number, allInput: number): number | null {
  if (
    !Number.isFinite(cacheReadTokens) ||
    !Number.isFinite(allInput) ||
    allInput <= 0 ||
    cacheReadTokens < 0 ||
    cacheReadTokens > allInput
  ) {
    return null;
  }
  return Math.round((cacheReadTokens / allInput) * 1e4) / 1e4;
}
