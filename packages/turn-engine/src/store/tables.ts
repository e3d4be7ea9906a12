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

/** The engine's tables, as Kysely sees them (migration `engine/0001-sessions`). */
export interface EngineTables {
  engine_sessions: EngineSessionsTable;
  engine_transcripts: EngineTranscriptsTable;
  engine_transcript_parts: EngineTranscriptPartsTable;
}
