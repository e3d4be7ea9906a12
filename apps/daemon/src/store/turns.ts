import type { CliFallback } from "@talkide/claude-cli";
import type { LimitReached, MissExplanation } from "@talkide/gateway";
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
import type { DaemonDb, TurnsTable, UsageSource } from "../db/schema.ts";
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

/**
 * A turn as the daemon shows it: its own row and its run's values, under the names its row had
 * up to migration 0010 (`http/views.ts` maps it to the API's JSON).
 */
export interface TurnRecord {
  readonly id: string;
  readonly delivery_id: string;
  /** The session it ran in (null only for a turn without a run, which the daemon never writes). */
  readonly session_id: string | null;
  readonly agent_id: string;
  readonly conversation_id: string;
  readonly attempt: number;
  readonly state: Selectable<TurnsTable>["state"];
  readonly resumed: boolean;
  /** The runtime session this turn resumed (null for a fresh session) … */
  readonly resumed_runtime_session_id: string | null;
  /** … and the one it reported (from the init event). */
  readonly runtime_session_id: string | null;
  /** The engine's failure code and message (never the CLI's words). */
  readonly failure_reason: string | null;
  readonly failure_message: string | null;
  readonly exit_code: number | null;
  /** What the turn cost: the gateway's figure (else the CLI's, see `usage_source`). */
  readonly cost_usd: number | null;
  /** Its session's total with this turn (up to 0.2.x: the runtime's total). */
  readonly cumulative_cost_usd: number | null;
  readonly claude_version: string | null;
  /** `warm` or `cold`; null when no process was started. */
  readonly process: "warm" | "cold" | null;
  /** Why a cold turn did not run in the conversation's kept process; null otherwise. */
  readonly cold_reason: string | null;
  /** The turn marker its processes carry: the id of the turn that started them. */
  readonly process_marker: string | null;
  /** The turn's tokens as reported; null when none. */
  readonly input_tokens: number | null;
  readonly cache_creation_input_tokens: number | null;
  readonly cache_read_input_tokens: number | null;
  readonly output_tokens: number | null;
  /** The session's input tokens (all kinds) and cache reads so far, this turn included (bigint). */
  readonly session_input_tokens: string | number | null;
  readonly session_cache_read_tokens: string | number | null;
  /** The CLI's fallback during the turn that makes the session's later requests heavier. */
  readonly cli_fallback: CliFallback | null;
  /** `gateway`: the provider's usage of the turn's requests; `cli`: the CLI's report. */
  readonly usage_source: UsageSource | null;
  /** Requests the gateway forwarded for the turn. */
  readonly requests: number | null;
  /** The turn's cache writes by lifetime; their sum is `cache_creation_input_tokens`. */
  readonly cache_write_5m_tokens: number | null;
  readonly cache_write_1h_tokens: number | null;
  /** Why the turn's first request missed the prompt cache, and the daemon's words for it. */
  readonly cache_miss: MissExplanation | null;
  readonly cache_miss_phrase: string | null;
  /** The limit the gateway refused a request of the turn over. */
  readonly usage_limit: LimitReached | null;
  readonly events: unknown[];
  readonly started_at: Date;
  readonly finished_at: Date | null;
}

/** The turn's row with its run's values (a turn without a run shows none). */
function turnRecord(turn: Selectable<TurnsTable>, run: RunRow | undefined): TurnRecord {
  return {
    id: turn.id,
    delivery_id: turn.delivery_id,
    session_id: run?.session_id ?? null,
    agent_id: turn.agent_id,
    conversation_id: turn.conversation_id,
    attempt: turn.attempt,
    state: turn.state,
    resumed: run?.resumed ?? false,
    resumed_runtime_session_id: run?.resumed_claude_session_id ?? null,
    runtime_session_id: run?.claude_session_id ?? null,
    failure_reason: run?.failure_code ?? null,
    failure_message: run?.failure_message ?? null,
    exit_code: run?.exit_code ?? null,
    cost_usd: run?.cost_usd ?? null,
    cumulative_cost_usd: run?.cumulative_cost_usd ?? null,
    claude_version: run?.claude_version ?? null,
    process: run?.process ?? null,
    cold_reason: run?.cold_reason ?? null,
    process_marker: run?.process_marker ?? null,
    input_tokens: run?.input_tokens ?? null,
    cache_creation_input_tokens: run?.cache_creation_input_tokens ?? null,
    cache_read_input_tokens: run?.cache_read_input_tokens ?? null,
    output_tokens: run?.output_tokens ?? null,
    session_input_tokens: run?.session_input_tokens ?? null,
    session_cache_read_tokens: run?.session_cache_read_tokens ?? null,
    cli_fallback: (run?.cli_fallback ?? null) as CliFallback | null,
    usage_source: run?.usage_source ?? null,
    requests: run?.requests ?? null,
    cache_write_5m_tokens: run?.cache_write_5m_tokens ?? null,
    cache_write_1h_tokens: run?.cache_write_1h_tokens ?? null,
    cache_miss: (run?.cache_miss ?? null) as MissExplanation | null,
    cache_miss_phrase: run?.cache_miss_phrase ?? null,
    usage_limit: (run?.usage_limit ?? null) as LimitReached | null,
    events: turn.events,
    started_at: turn.started_at,
    finished_at: turn.finished_at,
  };
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
export async function listTurns(db: DaemonDb, filter: TurnFilter): Promise<readonly TurnRecord[]> {
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
  return rows.map((row) =>
    turnRecord(filter.withEvents === true ? row : { ...row, events: [] }, runs.get(row.id)),
  );
}
