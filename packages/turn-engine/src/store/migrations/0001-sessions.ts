import { sql, type Kysely } from "kysely";

/**
 * The engine's tables (issue 50): the sessions a turn continues and the transcripts a cold
 * resume writes back, once for every host. Plain SQL only: a migration never imports code
 * that can change after it ships.
 *
 * - `engine_sessions`: one row per conversation with the CLI. `scope` is the host's key for
 *   what one open session belongs to (the warm pool's key: the backend's `project:<id>`, the
 *   daemon's `agent:<id>/conversation:<id>`), `owner` what the host lists and deletes by, and
 *   `conversation` the daemon's conversation (null in the backend). A session begins with its
 *   first successful turn: only then are `claude_session_id` and the resume point set. `pin`
 *   is what the host runs now (its agent release, its standing prompt); null: unknown, never
 *   current. `cumulative_cost_usd` is the sum of its turns' costs, failed turns included.
 * - `engine_transcripts` and `engine_transcript_parts`: the CLI's transcript of a session after
 *   its last successful turn, as the concatenation of its parts in `seq` order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE engine_sessions (
    id text PRIMARY KEY,
    scope text NOT NULL,
    owner text NOT NULL,
    conversation text,
    pin text,
    claude_session_id text,
    resume_at_message_id text,
    turn_count integer NOT NULL DEFAULT 0,
    cumulative_cost_usd double precision,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    ended_at timestamptz,
    end_reason text
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX engine_sessions_one_open_per_scope ON engine_sessions (scope)
    WHERE ended_at IS NULL`.execute(db);
  await sql`CREATE INDEX engine_sessions_owner ON engine_sessions (owner, created_at)`.execute(db);
  await sql`CREATE INDEX engine_sessions_conversation ON engine_sessions (conversation, created_at)
    WHERE conversation IS NOT NULL`.execute(db);
  await sql`CREATE TABLE engine_transcripts (
    session_id text PRIMARY KEY REFERENCES engine_sessions (id) ON DELETE CASCADE,
    claude_session_id text NOT NULL,
    project_dir text NOT NULL,
    turn_id text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
  )`.execute(db);
  await sql`CREATE TABLE engine_transcript_parts (
    session_id text NOT NULL REFERENCES engine_transcripts (session_id) ON DELETE CASCADE,
    seq integer NOT NULL,
    content text NOT NULL,
    turn_id text NOT NULL,
    PRIMARY KEY (session_id, seq)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE engine_transcript_parts`.execute(db);
  await sql`DROP TABLE engine_transcripts`.execute(db);
  await sql`DROP TABLE engine_sessions`.execute(db);
}
