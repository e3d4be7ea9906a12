import type { AgentRow, DeliveryRow } from "../db/schema.ts";
import { sessionCacheReuseOf, usageFromColumns, type SessionRow } from "@talkide/turn-engine";
import { agentIdOf } from "../sessions/agent-sessions.ts";
import type { TurnRecord } from "../store/turns.ts";

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

export function turnView(row: TurnRecord, options: { readonly withEvents?: boolean } = {}) {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    sessionId: row.session_id,
    agentId: row.agent_id,
    conversationId: row.conversation_id,
    attempt: row.attempt,
    state: row.state,
    resumed: row.resumed,
    resumedRuntimeSessionId: row.resumed_runtime_session_id,
    runtimeSessionId: row.runtime_session_id,
    failureReason: row.failure_reason,
    failureMessage: row.failure_message,
    exitCode: row.exit_code,
    /** What the turn cost: the model gateway's figure (`usageSource`), failed turns too. */
    costUsd: row.cost_usd,
    /** The session's total with this turn: the sum of its turns' costs (never falls). */
    cumulativeCostUsd: row.cumulative_cost_usd,
    /** The turn's tokens: uncached, cache write (both lifetimes), cache read, output. */
    usage: usageFromColumns(row),
    /** `gateway`: the provider's own figures for the turn's requests; `cli`: the CLI's report. */
    usageSource: row.usage_source,
    /** Requests the gateway forwarded for the turn. */
    requests: row.requests,
    /** The turn's cache writes by lifetime (their sum is `usage.cacheCreationInputTokens`). */
    cacheWrite5mTokens: row.cache_write_5m_tokens,
    cacheWrite1hTokens: row.cache_write_1h_tokens,
    /** Why the turn's first request missed the prompt cache (`reason`, `position`, `gapMs`, `ttlMs`). */
    cacheMiss: row.cache_miss,
    /** The same in words (null for a kept prefix). */
    cacheMissPhrase: row.cache_miss_phrase,
    /** The limit a request of the turn was refused over (`usage_limit_reached`). */
    usageLimit: row.usage_limit,
    /** The session's cache reuse so far, this turn included (cache read / all input, 0..1). */
    sessionCacheReuse: sessionCacheReuseOf(row),
    /** The CLI's fallback during the turn (`tool_search_off`): every later turn sends more. */
    cliFallback: row.cli_fallback,
    claudeVersion: row.claude_version,
    process: row.process,
    coldReason: row.cold_reason,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    ...(options.withEvents === true ? { events: row.events } : {}),
  };
}

export type AgentView = ReturnType<typeof agentView>;
export type SessionView = ReturnType<typeof sessionView>;
export type DeliveryView = ReturnType<typeof deliveryView>;
export type TurnView = ReturnType<typeof turnView>;
