import type { AgentRow, DeliveryRow } from "../db/schema.ts";
import { sessionCacheReuseOf, usageFromColumns, type SessionRow } from "@talkide/turn-engine";
import { agentIdOf } from "../sessions/agent-sessions.ts";
import type { CliFallback } from "@talkide/claude-cli";
import type { LimitReached, MissExplanation } from "@talkide/gateway";
import type { ListedTurn } from "../store/turns.ts";

/** The API's JSON shapes: camelCase, timestamps as ISO strings, no secrets. */

const iso = (d: Date | string | null): string | null =>
  d === null ? null : new Date(d).toISOString();

export function agentView(row: AgentRow) {
  return {
    id: row.id,
    runtime: row.runtime,
    workspaceDir: row.workspace_dir,
    runtimeMeta: row.runtime_meta,
    resetCount: row.reset_count,
    lastResetAt: iso(row.last_reset_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** A session of the engine's store, as the daemon has always shown it; `runtime` is its agent's. */
export function sessionView(row: SessionRow, runtime: string) {
  return {
    id: row.id,
    agentId: agentIdOf(row),
    conversationId: row.conversation ?? "",
    runtime,
    runtimeSessionId: row.claude_session_id,
    standingPromptVersion: row.pin ?? "",
    turnCount: row.turn_count,
    /** What its turns cost so far: their sum (never falls). */
    cumulativeCostUsd: row.cumulative_cost_usd,
    live: row.ended_at === null,
    invalidatedAt: iso(row.ended_at),
    invalidatedReason: row.end_reason,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** The delivery document itself (message content) is shown only on request. */
export function deliveryView(row: DeliveryRow, options: { readonly withPayload?: boolean } = {}) {
  return {
    id: row.id,
    seq: row.seq,
    agentId: row.agent_id,
    messageId: row.message_id,
    conversationId: row.conversation_id,
    reason: row.reason,
    state: row.state,
    failureReason: row.failure_reason,
    failureMessage: row.failure_message,
    attempts: row.attempts,
    acceptedAt: iso(row.accepted_at),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    ...(options.withPayload === true ? { payload: row.payload } : {}),
  };
}

/**
 * A turn as the API shows it: the daemon's row (delivery, attempt, state, events) and the
 * engine's run (session, process, failure, tokens, cost), under the names the API has always
 * used (`runtimeSessionId` is the run's CLI session, `failureReason` its failure code).
 */
export function turnView(
  { turn, run }: ListedTurn,
  options: { readonly withEvents?: boolean } = {},
) {
  return {
    id: turn.id,
    deliveryId: turn.delivery_id,
    sessionId: run?.session_id ?? null,
    agentId: turn.agent_id,
    conversationId: turn.conversation_id,
    attempt: turn.attempt,
    state: turn.state,
    resumed: run?.resumed ?? false,
    resumedRuntimeSessionId: run?.resumed_claude_session_id ?? null,
    runtimeSessionId: run?.claude_session_id ?? null,
    failureReason: run?.failure_code ?? null,
    failureMessage: run?.failure_message ?? null,
    exitCode: run?.exit_code ?? null,
    /** What the turn cost: the model gateway's figure (`usageSource`), failed turns too. */
    costUsd: run?.cost_usd ?? null,
    /** The session's total with this turn: the sum of its turns' costs (never falls). */
    cumulativeCostUsd: run?.cumulative_cost_usd ?? null,
    /** The turn's tokens: uncached, cache write (both lifetimes), cache read, output. */
    usage: run === null ? null : usageFromColumns(run),
    /** `gateway`: the provider's own figures for the turn's requests; `cli`: the CLI's report. */
    usageSource: run?.usage_source ?? null,
    /** Requests the gateway forwarded for the turn. */
    requests: run?.requests ?? null,
    /** The turn's cache writes by lifetime (their sum is `usage.cacheCreationInputTokens`). */
    cacheWrite5mTokens: run?.cache_write_5m_tokens ?? null,
    cacheWrite1hTokens: run?.cache_write_1h_tokens ?? null,
    /** Why the turn's first request missed the prompt cache (`reason`, `position`, `gapMs`, `ttlMs`). */
    cacheMiss: (run?.cache_miss ?? null) as MissExplanation | null,
    /** The same in words (null for a kept prefix). */
    cacheMissPhrase: run?.cache_miss_phrase ?? null,
    /** The limit a request of the turn was refused over (`usage_limit_reached`). */
    usageLimit: (run?.usage_limit ?? null) as LimitReached | null,
    /** The session's cache reuse so far, this turn included (cache read / all input, 0..1). */
    sessionCacheReuse: run === null ? null : sessionCacheReuseOf(run),
    /** The CLI's fallback during the turn (`tool_search_off`): every later turn sends more. */
    cliFallback: (run?.cli_fallback ?? null) as CliFallback | null,
    claudeVersion: run?.claude_version ?? null,
    process: run?.process ?? null,
    coldReason: run?.cold_reason ?? null,
    startedAt: iso(turn.started_at),
    finishedAt: iso(turn.finished_at),
    ...(options.withEvents === true ? { events: turn.events } : {}),
  };
}

export type AgentView = ReturnType<typeof agentView>;
export type SessionView = ReturnType<typeof sessionView>;
export type DeliveryView = ReturnType<typeof deliveryView>;
export type TurnView = ReturnType<typeof turnView>;
