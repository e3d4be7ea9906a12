import type { ColumnType } from "kysely";

/** Timestamps as the host's driver returns them: a Date or PostgreSQL's text. */
type Timestamp = ColumnType<Date | string, never, never>;
type NullableTimestamp = ColumnType<Date | string | null, never, never>;

export interface EngineSessionsTable {
  id: string;
  scope: string;
  owner: string;
  conversation: string | null;
  pin: string | null;
  claude_session_id: string | null;
  resume_at_message_id: string | null;
  turn_count: ColumnType<number, never, never>;
  cumulative_cost_usd: ColumnType<number | null, never, number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  ended_at: NullableTimestamp;
  end_reason: string | null;
}

export interface EngineTranscriptsTable {
  session_id: string;
  claude_session_id: string;
  project_dir: string;
  turn_id: string;
  updated_at: Timestamp;
}

export interface EngineTranscriptPartsTable {
  session_id: string;
  seq: number;
  content: string;
  turn_id: string;
}

/** What the engine knows of a run (migration `engine/0002-runs`). */
export type RunOutcome = "running" | "succeeded" | "failed" | "interrupted" | "stopped";

export interface EngineRunsTable {
  turn_id: string;
  owner: string;
  session_id: string | null;
  outcome: ColumnType<RunOutcome, RunOutcome | undefined, RunOutcome>;
  resumed: ColumnType<boolean, boolean | undefined, boolean>;
  resumed_claude_session_id: string | null;
  claude_session_id: string | null;
  claude_version: string | null;
  process: "warm" | "cold" | null;
  cold_reason: string | null;
  process_marker: string | null;
  failure_code: string | null;
  failure_message: string | null;
  exit_code: number | null;
  usage_source: "gateway" | "cli" | null;
  requests: number | null;
  input_tokens: number | null;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  output_tokens: number | null;
  cache_write_5m_tokens: number | null;
  cache_write_1h_tokens: number | null;
  /** bigint: a driver may read them as decimal strings. */
  session_input_tokens: ColumnType<string | number | null, number | null, number | null>;
  session_cache_read_tokens: ColumnType<string | number | null, number | null, number | null>;
  cost_usd: number | null;
  cumulative_cost_usd: number | null;
  /** jsonb: a driver may hand it back as text (`runsOf` parses it). */
  cache_miss: ColumnType<unknown, string | null, string | null>;
  cache_miss_phrase: string | null;
  cli_fallback: string | null;
  usage_limit: ColumnType<unknown, string | null, string | null>;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
}

/** The engine's tables, as Kysely sees them (migrations `engine/0001-sessions`, `0002-runs`). */
export interface EngineTables {
  engine_runs: EngineRunsTable;
  engine_sessions: EngineSessionsTable;
  engine_transcripts: EngineTranscriptsTable;
  engine_transcript_parts: EngineTranscriptPartsTable;
}
