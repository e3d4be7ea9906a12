import { z } from "zod";

/**
 * A turn's tokens as Claude Code reported them in its result event (summed over the turn's
 * requests to the model API): `inputTokens` read uncached, `cacheCreationInputTokens` written
 * to the prompt cache, `cacheReadInputTokens` read from it, `outputTokens` generated.
 */
export const tokenUsageSchema = z.strictObject({
  inputTokens: z.int().nonnegative(),
  cacheCreationInputTokens: z.int().nonnegative(),
  cacheReadInputTokens: z.int().nonnegative(),
  outputTokens: z.int().nonnegative(),
});

/**
 * The session's cache reuse so far, this turn included: cache read tokens over all input
 * tokens (0..1, four decimals); null when unknown (no tokens reported).
 */
export const cacheReuseSchema = z.number().min(0).max(1).nullable();
