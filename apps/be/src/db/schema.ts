import type { ColumnType, Generated } from "kysely";

/**
 * Timestamps come back from both drivers as PostgreSQL's own text (UTC, ISO style, with the
 * full fraction) and are turned into RFC 3339 by `toRfc3339`; a JavaScript Date would drop
 * the microseconds that order the team roster.
 */
/** Always has a database default, so inserts may leave it out. */
type Timestamp = ColumnType<string, string | undefined, string>;
type NullableTimestamp = ColumnType<string | null, string | null | undefined, string | null>;

export interface UsersTable {
  id: Generated<string>;
  /**
   * Personal data: lives here and nowhere else, never rendered, never logged. Null for an
   * account made by taking an invite's seat (migration 0013).
   */
  email: string | null;
  /** Lower-cased email, the unique key (null with the e-mail). */
  email_key: string | null;
  display_name: string;
  phone: string | null;
  created_at: Timestamp;
}

export interface ApiTokensTable {
  id: Generated<string>;
  user_id: string;
  /** sha256 (hex) of the token; the token itself is shown once and never stored. */
  token_sha256: string;
  /** What its owner calls it (shown in the console's token list). */
  name: string;
  expires_at: string;
  /** Updated at most once a minute (see auth/principal.ts); null: never used. */
  last_used_at: NullableTimestamp;
  created_at: Timestamp;
}

/** A browser's sign-in (migration 0013): the cookie's sha256; ended on the server. */
export interface BrowserSessionsTable {
  id: Generated<string>;
  user_id: string;
  secret_sha256: string;
  /** The browser's User-Agent at sign-in, cut to 200 characters: only for the person's list. */
  user_agent: string | null;
  created_at: Timestamp;
  last_used_at: Timestamp;
  ended_at: NullableTimestamp;
}

/** An invite (migration 0013): a pending place in one project, taken by redeeming its link. */
export interface SeatsTable {
  id: Generated<string>;
  project_id: number;
  role: MemberRole;
  salutation: string;
  team_briefing: string | null;
  /** The e-mail the owner noted for their own reference; never used to find an account. */
  contact: string | null;
  /** sha256 of the link's one-time code; a new link replaces it. */
  code_sha256: string;
  expires_at: string;
  created_at: Timestamp;
  redeemed_at: NullableTimestamp;
  /** The member the seat became. */
  member_id: string | null;
  withdrawn_at: NullableTimestamp;
}

export interface SignInCodesTable {
  id: Generated<string>;
  user_id: string;
  /** sha256 (hex) of the one-time code; the code itself is shown once and never stored. */
  code_sha256: string;
  expires_at: string;
  /** Set when the code was exchanged for an API token: a code works once. */
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface ProjectsTable {
  /** The lowest free id in 1..999 (see nextProjectId), the domain of the derived ports. */
  id: number;
  name: string;
  url: string | null;
  description: string | null;
  backend_language: Generated<string>;
  backend_framework: Generated<string>;
  frontend_language: Generated<string>;
  frontend_framework: Generated<string>;
  workspace_dir: string;
  created_at: Timestamp;
}

export type MemberRole = "owner" | "member";

export interface MembersTable {
  id: Generated<string>;
  project_id: number;
  user_id: string;
  role: MemberRole;
  salutation: string;
  /** NFC + default lower case: two salutations that Mara could not tell apart collide here. */
  salutation_key: string;
  /**
   * The salutation's look (`confusableSkeleton`: UTS #39 skeleton without default
   * ignorables), unique per project. Null only for a member who already
   * looked like an earlier one when migration 0009 ran; they get one when their salutation
   * next changes.
   */
  salutation_skeleton: string | null;
  team_briefing: string | null;
  created_at: Timestamp;
  /** Set when the member was removed or left (migration 0013): the row counts for nothing. */
  removed_at: NullableTimestamp;
}

export type TurnStatus = "queued" | "running" | "succeeded" | "failed" | "stopped";

export interface TurnsTable {
  id: Generated<string>;
  project_id: number;
  number: number;
  member_id: string;
  /** The engine's session (`engine_sessions`, migration 0017) the turn ran in. */
  agent_session_id: string | null;
  claude_session_id: string | null;
  resumed: Generated<boolean>;
  /** Why this turn did not continue the project's session (`agent_changed`, `unknown_session`). */
  session_reset: string | null;
  prompt: string;
  status: TurnStatus;
  error_code: string | null;
  error_message: string | null;
  result_text: string | null;
  cost_usd: number | null;
  cumulative_cost_usd: number | null;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  /** JSON array of workspace-relative paths; null until the pre-spawn check ran. */
  workspace_instruction_files: ColumnType<string | null, never, string | null>;
  /** `warm` or `cold` (see migration 0006); null when no process was started. */
  process: ColumnType<"warm" | "cold" | null, never, "warm" | "cold" | null>;
  /** Why a cold turn did not run in a kept process; null for warm turns. */
  cold_reason: ColumnType<string | null, never, string | null>;
  /** The `TALKIDE_TURN_ID` value the turn's processes carry (the turn that started them). */
  process_marker: ColumnType<string | null, never, string | null>;
  /**
   * The instance that ran the turn had the local demo model configured: its answer and cost are
   * not Claude's (see migration 0010); false for turns that never ran.
   */
  demo_model: ColumnType<boolean, never, boolean>;
  /** The turn's tokens as the CLI reported them (migration 0011); null when it reported none. */
  input_tokens: ColumnType<number | null, never, number | null>;
  cache_creation_input_tokens: ColumnType<number | null, never, number | null>;
  cache_read_input_tokens: ColumnType<number | null, never, number | null>;
  output_tokens: ColumnType<number | null, never, number | null>;
  /**
   * The session's input tokens (all kinds) and cache reads so far, this turn included; bigint
   * (a driver may read it as a decimal string), null when the turn reported none.
   */
  session_input_tokens: ColumnType<string | number | null, never, number | null>;
  session_cache_read_tokens: ColumnType<string | number | null, never, number | null>;
  /**
   * A CLI fallback during the turn that makes every later request of the session heavier
   * (migration 0012; `tool_search_off`), null when none was seen.
   */
  cli_fallback: ColumnType<"tool_search_off" | null, never, "tool_search_off" | null>;
  /** The member who stopped the turn (migration 0015); set when the stop is asked for. */
  stopped_by: ColumnType<string | null, never, string | null>;
  /**
   * The LLM gateway's exact cache writes by lifetime (migration 0016); null for turns whose
   * figures are the CLI's (before it) or that made no request.
   */
  cache_write_5m_tokens: ColumnType<number | null, never, number | null>;
  cache_write_1h_tokens: ColumnType<number | null, never, number | null>;
  /** Why the turn's first request missed the prompt cache (`CacheMiss`, migration 0016). */
  cache_miss: ColumnType<CacheMissColumn | null, never, string | null>;
}

/** What `turns.cache_miss` holds: the gateway's explanation and the backend's phrase for it. */
export interface CacheMissColumn {
  readonly reason: string;
  readonly phrase: string | null;
  readonly position: {
    readonly section: string;
    readonly index: number;
    readonly block: number | null;
    readonly offset: number;
  } | null;
  readonly gapMs: number | null;
  readonly ttlMs: number | null;
}

export interface TurnEventsTable {
  turn_id: string;
  seq: number;
  type: string;
  data: ColumnType<unknown, string, string>;
  created_at: Timestamp;
  /** The project-wide number a trigger gives every event (migration 0015). */
  project_seq: ColumnType<string | number | null, never, never>;
}

/** A project's events that belong to no turn (migration 0015): roster changes. */
export interface ProjectEventsTable {
  project_id: number;
  project_seq: ColumnType<string | number, never, never>;
  type: string;
  data: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}

export interface DatabaseSchema {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  browser_sessions: BrowserSessionsTable;
  seats: SeatsTable;
  sign_in_codes: SignInCodesTable;
  projects: ProjectsTable;
  members: MembersTable;
  turns: TurnsTable;
  turn_events: TurnEventsTable;
  project_events: ProjectEventsTable;
}
