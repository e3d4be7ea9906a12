import type { CliFallback } from "@talkide/claude-cli";
import type { LimitReached, MissExplanation } from "@talkide/gateway";
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

export interface TurnsTable {
  id: string;
  delivery_id: string;
  session_id: string;
  agent_id: string;
  conversation_id: string;
  attempt: number;
  state: Generated<TurnState>;
  resumed: boolean;
  /** The runtime session this turn resumed (null for a fresh session) … */
  resumed_runtime_session_id: string | null;
  /** … and the one it reported (from the init event). */
  runtime_session_id: string | null;
  failure_reason: string | null;
  failure_message: string | null;
  exit_code: number | null;
  /** What the turn cost: the gateway's figure (else the CLI's, see `usage_source`). */
  cost_usd: number | null;
  /** Its session's `cumulative_cost_usd` with this turn (up to 0.2.x: the runtime's total). */
  cumulative_cost_usd: number | null;
  claude_version: string | null;
  /** `warm` or `cold` (migration 0004); null when no process was started. */
  process: ColumnType<"warm" | "cold" | null, "warm" | "cold" | null | undefined>;
  /** Why a cold turn did not run in the conversation's kept process; null otherwise. */
  cold_reason: ColumnType<string | null, string | null | undefined>;
  /**
   * The turn marker its processes carry (`TALKIDE_TURN_ID`; `TICLAWK_TURN_ID` up to 0.2.x): the
   * id of the turn that started them.
   */
  process_marker: ColumnType<string | null, string | null | undefined>;
  /** The turn's tokens as the runtime reported them (migration 0006); null when none. */
  input_tokens: ColumnType<number | null, number | null | undefined>;
  cache_creation_input_tokens: ColumnType<number | null, number | null | undefined>;
  cache_read_input_tokens: ColumnType<number | null, number | null | undefined>;
  output_tokens: ColumnType<number | null, number | null | undefined>;
  /** The session's input tokens (all kinds) and cache reads so far, this turn included (bigint). */
  session_input_tokens: ColumnType<string | number | null, number | null | undefined>;
  session_cache_read_tokens: ColumnType<string | number | null, number | null | undefined>;
  /** The CLI's fallback during the turn that makes the session's later requests heavier (0007). */
  cli_fallback: ColumnType<CliFallback | null, CliFallback | null | undefined>;
  /**
   * Where the turn's figures come from (migration 0008): `gateway`, the provider's usage of the
   * turn's requests; `cli`, the CLI's report (no request of the turn went through the gateway).
   */
  usage_source: ColumnType<UsageSource | null, UsageSource | null | undefined>;
  /** Requests the gateway forwarded for the turn (0008). */
  requests: ColumnType<number | null, number | null | undefined>;
  /** The turn's cache writes by lifetime (0008); their sum is `cache_creation_input_tokens`. */
  cache_write_5m_tokens: ColumnType<number | null, number | null | undefined>;
  cache_write_1h_tokens: ColumnType<number | null, number | null | undefined>;
  /** Why the turn's first request missed the prompt cache, and the daemon's words for it (0008). */
  cache_miss: ColumnType<MissExplanation | null, string | null | undefined, string | null>;
  cache_miss_phrase: ColumnType<string | null, string | null | undefined>;
  /** The limit the gateway refused a request of the turn over (0008). */
  usage_limit: ColumnType<LimitReached | null, string | null | undefined, string | null>;
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
export type TurnRow = Selectable<TurnsTable>;
