import type { TokenUsage } from "@talkide/claude-cli";
import type { Gateway, MissExplanation } from "@talkide/gateway";
import type { SessionInvalidationReason, UsageSource } from "../db/schema.ts";

/**
 * What a turn used and cost, as stored with it. With the model gateway these are the
 * provider's own figures for the turn's requests (`gateway.turnUsage`: exact, cache writes by
 * lifetime, a failed turn's too); a turn none of whose requests went through the gateway (no
 * gateway: the CLI uses its own login; or nothing reached the provider) keeps what the CLI
 * reported, its cost the difference of the CLI's running totals.
 */
export interface TurnAccount {
  readonly source: UsageSource | null;
  /** Uncached input, cache writes (both lifetimes), cache reads, output. */
  readonly usage: TokenUsage | null;
  readonly costUsd: number | null;
  /** Requests the gateway forwarded; null without the gateway's figures. */
  readonly requests: number | null;
  readonly cacheWrite5mTokens: number | null;
  readonly cacheWrite1hTokens: number | null;
  /** Why the turn's first request missed the prompt cache (or kept it). */
  readonly cacheMiss: MissExplanation | null;
  /** The daemon's words for it (null for a kept prefix). */
  readonly cacheMissPhrase: string | null;
}

/** Why a turn's session is new to the gateway, as the daemon knows it (`newSessionPhrase`). */
export type NewSessionWhy = "first" | "not_begun" | "resumed" | SessionInvalidationReason;

export async function accountTurn(
  gateway: Gateway | null,
  turnId: string,
  cli: { readonly usage: TokenUsage | null; readonly costUsd: number | null },
  why: NewSessionWhy,
): Promise<TurnAccount> {
  const measured = gateway === null ? null : await gateway.turnUsage(turnId);
  if (measured === null) {
    return {
      source: cli.usage === null && cli.costUsd === null ? null : "cli",
      usage: cli.usage,
      costUsd: cli.costUsd,
      requests: null,
      cacheWrite5mTokens: null,
      cacheWrite1hTokens: null,
      cacheMiss: null,
      cacheMissPhrase: null,
    };
  }
  const { miss } = measured;
  return {
    source: "gateway",
    usage: {
      inputTokens: measured.inputTokens,
      cacheCreationInputTokens: measured.cacheWrite5mTokens + measured.cacheWrite1hTokens,
      cacheReadInputTokens: measured.cacheReadTokens,
      outputTokens: measured.outputTokens,
    },
    costUsd: measured.costUsd,
    requests: measured.requests,
    cacheWrite5mTokens: measured.cacheWrite5mTokens,
    cacheWrite1hTokens: measured.cacheWrite1hTokens,
    cacheMiss: miss,
    // The gateway knows a session is new to it; the turn knows why.
    cacheMissPhrase: miss?.reason === "new_session" ? newSessionPhrase(why) : measured.missPhrase,
  };
}

/** Why the turn's first request found no earlier prompt of its session, in the daemon's words. */
export function newSessionPhrase(why: NewSessionWhy): string {
  const written = "its whole prompt is written to the cache";
  switch (why) {
    case "first":
      return `the conversation's first session: ${written}`;
    case "not_begun":
      return `the conversation's session had not begun (no turn of it succeeded yet): ${written}`;
    case "standing_prompt_changed":
      return `the standing prompt changed, so the conversation's session started again: ${written} again`;
    case "reset":
      return `the agent was reset, so the conversation's session started again: ${written} again`;
    case "unknown_session":
      return `Claude Code could not resume the session (its transcript was gone), so a new one started: ${written} again`;
    case "resumed":
      return "the gateway had seen no earlier request of this session (it began before the daemon measured requests, or was idle for 30 days)";
  }
}
