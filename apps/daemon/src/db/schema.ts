import type { ColumnType, Generated, Kysely, Selectable } from "kysely";

/**
 * The daemon's tables, as Kysely sees them. Column names stay snake_case (what SQL shows);
 * the HTTP API maps rows to its own camelCase views explicitly (`http/views.ts`).
 *
 * Integers are `integer`, never `bigint`: the two drivers disagree on how to return int8
 * (PGlite a number, node-postgres a string), and no counter here comes near 2^31.
 */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
/** jsonb: read as a parsed value, written as JSON text (both drivers accept that). */
type Json<T> = ColumnType<T, string, string>;

export type DeliveryState = "accepted" | "running" | "completed" | "failed";
export type TurnState = "running" | "completed" | "failed" | "interrupted";
export type TokenScope = "admin" | "intake";
export type UsageSource = "gateway" | "cli";
export type SessionInvalidationReason = "reset" | "standing_prompt_changed" | "unknown_session";

export interface AgentRuntimeMeta {
  readonly claudePath?: string;
  readonly claudeVersion?: string | null;
  readonly lastTurnAt?: string;
}

export interface DaemonMetaTable {
  key: string;
  value: string;
}

export interface ApiTokensTable {
  id: string;
  name: string;
  scope: TokenScope;
  /** sha256 hex of the token; the token itself is shown once and never stored. */
  token_hash: string;
  created_at: Generated<Date>;
  revoked_at: NullableTimestamp;
}

export interface AgentsTable {
  id: string;
  runtime: string;
  workspace_dir: string;
  runtime_meta: Json<AgentRuntimeMeta>;
  reset_count: Generated<number>;
  last_reset_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Timestamp;
}

export interface DeliveriesTable {
  id: string;
  /** Acceptance order; deliveries of one session run in this order. */
  seq: Generated<number>;
  agent_id: string;
  message_id: string;
  conversation_id: string;
  /** Why the message service routed this message to the agent (mention, dm, ambient, …). */
  reason: string | null;
  /** The validated delivery document, kept to build the wake prompt when the turn runs. */
  payload: Json<unknown>;
  state: Generated<DeliveryState>;
  failure_reason: string | null;
  failure_message: string | null;
  attempts: Generated<number>;
  accepted_at: Generated<Date>;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
}

/**
 * A turn of a delivery: the daemon's own part of it. What its run did and cost (its session,
 * process, failure, tokens and cost) is the turn engine's run, by the turn's id (migration
 * 0010): `store/turns.ts` reads both.
 */
export interface TurnsTable {
  id: string;
  delivery_id: string;
  agent_id: string;
  conversation_id: string;
  attempt: number;
  state: Generated<TurnState>;
  events: Json<unknown[]>;
  started_at: Generated<Date>;
  finished_at: NullableTimestamp;
}

export interface DaemonTables {
  daemon_meta: DaemonMetaTable;
  api_tokens: ApiTokensTable;
  agents: AgentsTable;
  deliveries: DeliveriesTable;
  turns: TurnsTable;
}

export type DaemonDb = Kysely<DaemonTables>;

export type AgentRow = Selectable<AgentsTable>;
export type DeliveryRow = Selectable<DeliveriesTable>;
