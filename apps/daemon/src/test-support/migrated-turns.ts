import {
  engineDb,
  runsOf,
  sessionCacheReuseOf,
  usageFromColumns,
  type SessionUsageColumns,
  type UsageColumns,
} from "@talkide/turn-engine";
import { sql, type Kysely } from "kysely";
import { expect } from "vitest";

/**
 * The turns' rows of a database at daemon/0009 (before their runs moved to the engine), as the
 * list of turns read them then: newest first, without their events.
 */
export async function turnsAsListed<DB>(db: Kysely<DB>): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`
    SELECT * FROM turns ORDER BY started_at DESC, id`.execute(db);
  return rows.map((row) => ({ ...row, events: [] }));
}

const OUTCOME_OF_STATE: Record<string, string> = {
  running: "running",
  completed: "succeeded",
  failed: "failed",
  interrupted: "interrupted",
};

/** Migration 0010 gave each of these 0009 rows a run holding exactly what the row held. */
export async function expectRunsHoldTheirTurns<DB>(
  db: Kysely<DB>,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const runs = await runsOf(
    engineDb(db),
    rows.map((row) => String(row["id"])),
  );
  for (const row of rows) {
    expect(runs.get(String(row["id"]))).toEqual({
      turn_id: row["id"],
      owner: `agent:${String(row["agent_id"])}`,
      session_id: row["session_id"],
      outcome: OUTCOME_OF_STATE[String(row["state"])],
      resumed: row["resumed"],
      resumed_claude_session_id: row["resumed_runtime_session_id"],
      claude_session_id: row["runtime_session_id"],
      claude_version: row["claude_version"],
      process: row["process"],
      cold_reason: row["cold_reason"],
      process_marker: row["process_marker"],
      failure_code: row["failure_reason"],
      failure_message: row["failure_message"],
      exit_code: row["exit_code"],
      usage_source: row["usage_source"],
      requests: row["requests"],
      input_tokens: row["input_tokens"],
      cache_creation_input_tokens: row["cache_creation_input_tokens"],
      cache_read_input_tokens: row["cache_read_input_tokens"],
      output_tokens: row["output_tokens"],
      cache_write_5m_tokens: row["cache_write_5m_tokens"],
      cache_write_1h_tokens: row["cache_write_1h_tokens"],
      session_input_tokens: row["session_input_tokens"],
      session_cache_read_tokens: row["session_cache_read_tokens"],
      cost_usd: row["cost_usd"],
      cumulative_cost_usd: row["cumulative_cost_usd"],
      cache_miss: row["cache_miss"],
      cache_miss_phrase: row["cache_miss_phrase"],
      cli_fallback: row["cli_fallback"],
      usage_limit: row["usage_limit"],
      started_at: row["started_at"],
      finished_at: row["finished_at"],
    });
  }
}

/**
 * What the API showed of a turn's 0009 row: the daemon's turn view as it was then (a frozen
 * copy, so that the view of the migrated turn is compared with the release's, not with itself).
 */
export function viewAt0009(row: Record<string, unknown>): TurnViewAt0009 {
  const iso = (d: unknown) => (d === null ? null : new Date(d as string).toISOString());
  return JSON.parse(
    JSON.stringify({
      id: row["id"],
      deliveryId: row["delivery_id"],
      sessionId: row["session_id"],
      agentId: row["agent_id"],
      conversationId: row["conversation_id"],
      attempt: row["attempt"],
      state: row["state"],
      resumed: row["resumed"],
      resumedRuntimeSessionId: row["resumed_runtime_session_id"],
      runtimeSessionId: row["runtime_session_id"],
      failureReason: row["failure_reason"],
      failureMessage: row["failure_message"],
      exitCode: row["exit_code"],
      costUsd: row["cost_usd"],
      cumulativeCostUsd: row["cumulative_cost_usd"],
      usage: usageFromColumns(row as unknown as UsageColumns),
      usageSource: row["usage_source"],
      requests: row["requests"],
      cacheWrite5mTokens: row["cache_write_5m_tokens"],
      cacheWrite1hTokens: row["cache_write_1h_tokens"],
      cacheMiss: row["cache_miss"],
      cacheMissPhrase: row["cache_miss_phrase"],
      usageLimit: row["usage_limit"],
      sessionCacheReuse: sessionCacheReuseOf(row as unknown as SessionUsageColumns),
      cliFallback: row["cli_fallback"],
      claudeVersion: row["claude_version"],
      process: row["process"],
      coldReason: row["cold_reason"],
      startedAt: iso(row["started_at"]),
      finishedAt: iso(row["finished_at"]),
    }),
  ) as TurnViewAt0009;
}

/** A turn's JSON as the API gave it at 0009 (the ids the tests filter by, and the rest). */
export type TurnViewAt0009 = Record<string, unknown> & {
  readonly sessionId: string;
  readonly deliveryId: string;
};
