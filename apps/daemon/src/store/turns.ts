import type { LimitReached } from "@talkide/gateway";
import {
  engineDb,
  finishRun,
  recordRunProcess,
  runsOf,
  startRun,
  turnIdsOfSession,
  type RunProcess,
  type RunRow,
} from "@talkide/turn-engine";
import { sql, type Selectable } from "kysely";
import type { DaemonDb, TurnsTable } from "../db/schema.ts";
import type { TurnAccount } from "../scheduler/turn-account.ts";
import { agentOwner } from "../sessions/agent-sessions.ts";

/**
 * A delivery's turns: the daemon's rows (`turns`: delivery, agent, conversation, attempt,
 * state, events) and the engine's runs beside them (its run store, by the turn's id: session,
 * process, failure, tokens and cost; migration 0010). Both are written together: in one
 * statement, or one transaction.
 */

/** How a turn's process started (see migration 0004). */
export type TurnProcess = RunProcess;

/**
 * Runs `work` in a transaction: its own, or the one `db` already is (a caller's, such as the
 * work queue's enqueue).
 */
function inTransaction<T>(db: DaemonDb, work: (trx: DaemonDb) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/**
 * Stores a running turn and starts its run (one statement). `process` is how its process started when that is
 * known already (a kept process, chosen before the rows are written); null when the rows must
 * exist before a process is started for it (`recordTurnProcess` follows).
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
  // One statement: the engine's run and the daemon's row beside it, neither without the other.
  const row = db.insertInto("turns").values({
    id: input.id,
    delivery_id: input.deliveryId,
    agent_id: input.agentId,
    conversation_id: input.conversationId,
    attempt: input.attempt,
    events: "[]",
  });
  await startRun(
    engineDb(db),
    {
      turnId: input.id,
      owner: agentOwner(input.agentId),
      sessionId: input.sessionId,
      resumedFrom: input.resumedRuntimeSessionId,
      claudeVersion: input.claudeVersion,
      process,
    },
    { steps: () => sql`stored_turn AS (${row})` },
  );
}

/** How the turn's process started; stored before its message is sent (see migration 0004). */
export async function recordTurnProcess(
  db: DaemonDb,
  id: string,
  info: TurnProcess,
): Promise<void> {
  await recordRunProcess(engineDb(db), id, info);
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
 * its run and to its session as a success's cost is (the session's total is the sum of its
 * turns). Only a running turn ends here: one that recovery marked interrupted already stays so.
 */
export async function endTurn(db: DaemonDb, id: string, end: TurnEnd): Promise<void> {
  await inTransaction(db, async (trx) => {
    const ended = await trx
      .updateTable("turns")
      .set({ state: end.state, finished_at: new Date() })
      .where("id", "=", id)
      .where("state", "=", "running")
      .returning("agent_id")
      .executeTakeFirst();
    if (ended === undefined) return;
    await finishRun(engineDb(trx), {
      turnId: id,
      owner: agentOwner(ended.agent_id),
      outcome: end.state,
      failure: { code: end.failureReason, message: end.failureMessage },
      sessionId: end.sessionId,
      claudeSessionId: end.runtimeSessionId,
      exitCode: end.exitCode,
      figures: end.account,
      // None: the stored one (none) stays.
      usageLimit: end.usageLimit ?? undefined,
    });
  });
}

/**
 * Ends a delivery's running turns as interrupted (its daemon stopped renewing its lease, or was
 * killed), with their runs; returns the turns it ended.
 */
export async function interruptTurnsOf(
  db: DaemonDb,
  deliveryId: string,
  failure: { readonly code: string; readonly message: string },
): Promise<readonly string[]> {
  return inTransaction(db, async (trx) => {
    const turns = await trx
      .updateTable("turns")
      .set({ state: "interrupted", finished_at: new Date() })
      .where("delivery_id", "=", deliveryId)
      .where("state", "=", "running")
      .returning(["id", "agent_id"])
      .execute();
    for (const turn of turns) {
      await finishRun(engineDb(trx), {
        turnId: turn.id,
        owner: agentOwner(turn.agent_id),
        outcome: "interrupted",
        failure,
        figures: null,
      });
    }
    return turns.map((turn) => turn.id);
  });
}

/** A turn of the list: the daemon's row and its run (none only for a turn the daemon never wrote). */
export interface ListedTurn {
  readonly turn: Selectable<TurnsTable>;
  readonly run: RunRow | null;
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
export async function listTurns(db: DaemonDb, filter: TurnFilter): Promise<readonly ListedTurn[]> {
  let q = db.selectFrom("turns").selectAll();
  if (filter.agentId !== undefined) q = q.where("agent_id", "=", filter.agentId);
  if (filter.deliveryId !== undefined) q = q.where("delivery_id", "=", filter.deliveryId);
  if (filter.sessionId !== undefined) {
    // A session's turns are its runs (however many: one array, not one parameter each).
    const ids = await turnIdsOfSession(engineDb(db), filter.sessionId);
    if (ids.length === 0) return [];
    q = q.where(sql<boolean>`id = any(${ids}::uuid[])`);
  }
  const rows = await q.orderBy("started_at", "desc").orderBy("id").limit(filter.limit).execute();
  const runs = await runsOf(
    engineDb(db),
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    turn: filter.withEvents === true ? row : { ...row, events: [] },
    run: runs.get(row.id) ?? null,
  }));
}
