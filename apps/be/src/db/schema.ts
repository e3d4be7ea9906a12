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

/**
 * A member's turn, as the backend keeps it. What the CLI did and cost for it (its session, the
 * process, tokens, cost, cache line) is the turn engine's record of its run, keyed by the
 * turn's id (migration 0018 moved it there): read and written through @talkide/turn-engine.
 */
export interface TurnsTable {
  id: Generated<string>;
  project_id: number;
  number: number;
  member_id: string;
  /** Why this turn did not continue the project's session (`agent_changed`, `unknown_session`). */
  session_reset: string | null;
  prompt: string;
  status: TurnStatus;
  /** What members are told of a failure (also of a turn that failed before it ran). */
  error_code: string | null;
  error_message: string | null;
  result_text: string | null;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  /** JSON array of workspace-relative paths; null until the pre-spawn check ran. */
  workspace_instruction_files: ColumnType<string | null, never, string | null>;
  /**
   * The instance that ran the turn had the local demo model configured: its answer and cost are
   * not Claude's (see migration 0010); false for turns that never ran.
   */
  demo_model: ColumnType<boolean, never, boolean>;
  /** The member who stopped the turn (migration 0015); set when the stop is asked for. */
  stopped_by: ColumnType<string | null, never, string | null>;
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
