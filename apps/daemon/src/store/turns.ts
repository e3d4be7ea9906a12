import type { TokenUsage } from "@talkide/claude-cli";
import { usageColumns } from "@talkide/turn-engine";
import type { DaemonDb, TurnRow } from "../db/schema.ts";

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

export interface TurnOutcome {
  readonly ok: boolean;
  readonly runtimeSessionId: string | null;
  readonly failureReason: string | null;
  readonly failureMessage: string | null;
  readonly exitCode: number | null;
  readonly costUsd: number | null;
  readonly cumulativeCostUsd: number | null;
  /** The tokens the runtime reported for the turn (a failed one too, when it reported a result). */
  readonly usage: TokenUsage | null;
  readonly events: readonly unknown[];
}

/** Only a running turn can finish; a turn recovery already marked interrupted stays so. */
export async function finishTurn(db: DaemonDb, id: string, outcome: TurnOutcome): Promise<void> {
  await db
    .updateTable("turns")
    .set({
      state: outcome.ok ? "completed" : "failed",
      runtime_session_id: outcome.runtimeSessionId,
      failure_reason: outcome.failureReason,
      failure_message: outcome.failureMessage,
      exit_code: outcome.exitCode,
      cost_usd: outcome.costUsd,
      cumulative_cost_usd: outcome.cumulativeCostUsd,
      ...usageColumns(outcome.usage),
      events: JSON.stringify(outcome.events),
      finished_at: new Date(),
    })
    .where("id", "=", id)
    .where("state", "=", "running")
    .execute();
}

/** A turn the daemon itself stopped (shutdown): not the runtime's failure. */
export async function interruptTurn(db: DaemonDb, id: string, message: string): Promise<void> {
  await db
    .updateTable("turns")
    .set({
      state: "interrupted",
      failure_reason: "daemon_stopped",
      failure_message: message,
      finished_at: new Date(),
    })
    .where("id", "=", id)
    .where("state", "=", "running")
    .execute();
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
