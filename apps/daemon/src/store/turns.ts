import type { LimitReached } from "@talkide/gateway";
import { chargeSession, engineDb, usageColumns } from "@talkide/turn-engine";
import type { DaemonDb, TurnRow } from "../db/schema.ts";
import type { TurnAccount } from "../scheduler/turn-account.ts";

/** How a turn's process started (see migration 0004). */
export interface TurnProcess {
  readonly kind: "warm" | "cold";
  readonly coldReason: string | null;
  readonly marker: string;
}

/**
 * Stores a running turn. `process` is how its process started when that is known already (a
 * kept process, chosen before the row is written: one statement instead of two); null when
 * the row must exist before a process is started for it (`recordTurnProcess` follows).
 */
export async function startTurn(
  db: DaemonDb,
  input: {
    /** Chosen by the caller: the turn's id reaches its environment before the row is written. */
    readonly id: string;
    readonly deliveryId: string;
    readonly sessionId: string;
    readonly agentId: string;
    readonly conversationId: string;
    readonly attempt: number;
    readonly resumedRuntimeSessionId: string | null;
    readonly claudeVersion: string | null;
  },
  process: TurnProcess | null,
): Promise<void> {
  await db
    .insertInto("turns")
    .values({
      id: input.id,
      delivery_id: input.deliveryId,
      session_id: input.sessionId,
      agent_id: input.agentId,
      conversation_id: input.conversationId,
      attempt: input.attempt,
      resumed: input.resumedRuntimeSessionId !== null,
      resumed_runtime_session_id: input.resumedRuntimeSessionId,
      runtime_session_id: null,
      failure_reason: null,
      failure_message: null,
      exit_code: null,
      cost_usd: null,
      cumulative_cost_usd: null,
      claude_version: input.claudeVersion,
      events: "[]",
      process: process?.kind ?? null,
      cold_reason: process?.coldReason ?? null,
      process_marker: process?.marker ?? null,
    })
    .execute();
}

/** How the turn's process started; stored before its message is sent (see migration 0004). */
export async function recordTurnProcess(
  db: DaemonDb,
  id: string,
  info: TurnProcess,
): Promise<void> {
  await db
    .updateTable("turns")
    .set({ process: info.kind, cold_reason: info.coldReason, process_marker: info.marker })
    .where("id", "=", id)
    .execute();
}

/** The turn's figures as its columns (`turn-account.ts`). */
function accountColumns(account: TurnAccount) {
  return {
    ...usageColumns(account.usage),
    cost_usd: account.costUsd,
    usage_source: account.source,
    requests: account.requests,
    cache_write_5m_tokens: account.cacheWrite5mTokens,
    cache_write_1h_tokens: account.cacheWrite1hTokens,
    cache_miss: account.cacheMiss === null ? null : JSON.stringify(account.cacheMiss),
    cache_miss_phrase: account.cacheMissPhrase,
  };
}

/** How a turn ended that did not succeed. */
export interface TurnEnd {
  readonly state: "failed" | "interrupted";
  readonly sessionId: string;
  /** The runtime session it ran in, when it reported one (a failed turn). */
  readonly runtimeSessionId?: string | null;
  readonly failureReason: string;
  readonly failureMessage: string;
  readonly exitCode?: number | null;
  /** What it used and cost: charged to the turn and its session, as a success's is. */
  readonly account: TurnAccount | null;
  /** The limit the gateway refused one of its requests over. */
  readonly usageLimit?: LimitReached | null;
}

/**
 * Ends a running turn that did not succeed: failed (the runtime's failure, the unknown-session
 * restart, a limit) or interrupted (the daemon stopped during it). What it cost is charged to
 * it and to its session as a success's cost is (the session's total is the sum of its turns).
 * Only a running turn ends here: one that recovery marked interrupted already stays so.
 */
export async function endTurn(db: DaemonDb, id: string, end: TurnEnd): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const ended = await trx
      .updateTable("turns")
      .set({
        state: end.state,
        failure_reason: end.failureReason,
        failure_message: end.failureMessage,
        ...(end.runtimeSessionId === undefined ? {} : { runtime_session_id: end.runtimeSessionId }),
        ...(end.exitCode === undefined ? {} : { exit_code: end.exitCode }),
        ...(end.account === null ? {} : accountColumns(end.account)),
        ...(end.usageLimit === undefined || end.usageLimit === null
          ? {}
          : { usage_limit: JSON.stringify(end.usageLimit) }),
        finished_at: new Date(),
      })
      .where("id", "=", id)
      .where("state", "=", "running")
      .returning("id")
      .executeTakeFirst();
    if (ended === undefined || end.account === null) return;
    const total = await chargeSession(engineDb(trx), end.sessionId, end.account.costUsd);
    await trx
      .updateTable("turns")
      .set({ cumulative_cost_usd: total })
      .where("id", "=", id)
      .execute();
  });
}

export interface TurnFilter {
  readonly agentId?: string | undefined;
  readonly deliveryId?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly limit: number;
  /** Include the runtime's stream events (large); off for lists by default. */
  readonly withEvents?: boolean | undefined;
}

/** Newest first. */
export async function listTurns(db: DaemonDb, filter: TurnFilter): Promise<readonly TurnRow[]> {
  let q = db.selectFrom("turns").selectAll();
  if (filter.agentId !== undefined) q = q.where("agent_id", "=", filter.agentId);
  if (filter.deliveryId !== undefined) q = q.where("delivery_id", "=", filter.deliveryId);
  if (filter.sessionId !== undefined) q = q.where("session_id", "=", filter.sessionId);
  const rows = await q.orderBy("started_at", "desc").orderBy("id").limit(filter.limit).execute();
  return filter.withEvents === true ? rows : rows.map((r) => ({ ...r, events: [] }));
}
