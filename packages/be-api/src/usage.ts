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

/**
 * A fallback of the CLI during the turn that makes every later request of its session heavier:
 * `tool_search_off`: a gateway refused deferred tools (`defer_loading`) with a 400 and the CLI
 * turned tool search off for the session, so each later request declares every tool in full
 * (about 8,100 tokens more with Claude Code 2.1.330 and 2.1.337; the session continues). Null:
 * none seen.
 */
export const cliFallbackSchema = z.enum(["tool_search_off"]).nullable();

export type CliFallback = NonNullable<z.infer<typeof cliFallbackSchema>>;
