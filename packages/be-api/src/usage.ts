import { z } from "zod";

/**
 * A turn's tokens, summed over its requests to the model API: `inputTokens` read uncached,
 * `cacheCreationInputTokens` written to the prompt cache, `cacheReadInputTokens` read from it,
 * `outputTokens` generated. Since the LLM gateway (issue 51) they are the provider's own
 * figures for each request, and the cache writes are split by lifetime:
 * `cacheCreation5mInputTokens` (5 minutes) + `cacheCreation1hInputTokens` (1 hour) =
 * `cacheCreationInputTokens`. Turns recorded before it carry the CLI's result-event figures
 * and no split.
 */
export const tokenUsageSchema = z.strictObject({
  inputTokens: z.int().nonnegative(),
  cacheCreationInputTokens: z.int().nonnegative(),
  cacheReadInputTokens: z.int().nonnegative(),
  outputTokens: z.int().nonnegative(),
  cacheCreation5mInputTokens: z.int().nonnegative().optional(),
  cacheCreation1hInputTokens: z.int().nonnegative().optional(),
});

/** The gateway's figures of a turn: the split is always there. */
export type ExactTokenUsage = Required<z.infer<typeof tokenUsageSchema>>;

/** Why a request missed the provider's prompt cache (the gateway compares it with the previous). */
export const CACHE_MISS_REASONS = [
  "new_session",
  "ttl_expired",
  "tools_changed",
  "system_changed",
  "messages_changed",
  "prefix_kept",
] as const;

/**
 * Why the turn's first request missed the provider's prompt cache, from the LLM gateway:
 * `reason`, the backend's `phrase` for it ("the active writer changed", "the cache expired
 * after 72 min"; null when it cannot name the change), where the prompt first differed from
 * the session's previous request (`position`: `section` tools/system/messages, `index` the
 * tool, system block or message, `block` the content block of a message, `offset` UTF-8 bytes
 * into it), the time since that request (`gapMs`) and its breakpoints' lifetime (`ttlMs`).
 */
export const cacheMissSchema = z.strictObject({
  reason: z.enum(CACHE_MISS_REASONS),
  phrase: z.string().nullable(),
  position: z
    .strictObject({
      section: z.enum(["tools", "system", "messages"]),
      index: z.int().nonnegative(),
      block: z.int().nonnegative().nullable(),
      offset: z.int().nonnegative(),
    })
    .nullable(),
  gapMs: z.number().nonnegative().nullable(),
  ttlMs: z.number().nonnegative().nullable(),
});

export type CacheMiss = z.infer<typeof cacheMissSchema>;

/** One period's spend and tokens (`GET /v1/projects/:id/usage`): since its first instant (UTC). */
const periodUsageSchema = z.strictObject({
  since: z.string(),
  usd: z.number().nonnegative(),
  tokens: z.int().nonnegative(),
  /** The operator's caps for this period (null: none). */
  limits: z.strictObject({ usd: z.number().nullable(), tokens: z.int().nullable() }),
});

/**
 * `GET /v1/projects/:id/usage`: what the project, and the caller across all their projects,
 * used today and this month (UTC), with the caps that apply; `demoModel` when this instance
 * answers with the local demo model (the amounts are then not real money).
 */
export const projectUsageSchema = z.strictObject({
  project: z.strictObject({ today: periodUsageSchema, month: periodUsageSchema }),
  you: z.strictObject({ today: periodUsageSchema, month: periodUsageSchema }),
  demoModel: z.boolean(),
});

export type ProjectUsage = z.infer<typeof projectUsageSchema>;

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
