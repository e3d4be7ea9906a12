import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * The turn engine owns the sessions (issue 50): every row of `agent_sessions`,
 * `agent_session_transcripts` and `agent_session_transcript_parts` moves to the engine's
 * tables (`engine/0001-sessions`, which runs before the backend's list), and a turn's
 * `agent_session_id` refers to `engine_sessions` from now on.
 *
 * - scope and owner are the project's warm pool key, `project:<id>`;
 * - the pin is `<agent sha256>:<plugin sha256>` (the backend's `releasePin`), null when either
 *   is unknown (never current: the next turn starts a new session, as before);
 * - the session's cost is the sum of its turns' costs, which is what the backend reported as
 *   its running total (the old `cumulative_cost_usd` column was the CLI's, no longer kept);
 * - `turn_count` is its succeeded turns; `end_reason` the `session_reset` of the turn running
 *   when it ended, else `ended`.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await sql`INSERT INTO engine_sessions (id, scope, owner, conversation, pin, claude_session_id,
      resume_at_message_id, turn_count, cumulative_cost_usd, created_at, updated_at, ended_at,
      end_reason)
    SELECT s.id::text, 'project:' || s.project_id, 'project:' || s.project_id, NULL,
           CASE WHEN s.agent_sha256 IS NOT NULL AND s.plugin_sha256 IS NOT NULL
                THEN s.agent_sha256 || ':' || s.plugin_sha256 END,
           s.claude_session_id, s.resume_at_message_id,
           (SELECT count(*)::int FROM turns t
             WHERE t.agent_session_id = s.id AND t.status = 'succeeded'),
           (SELECT sum(t.cost_usd) FROM turns t WHERE t.agent_session_id = s.id),
           s.created_at, s.updated_at, s.ended_at,
           CASE WHEN s.ended_at IS NOT NULL THEN COALESCE(
             (SELECT t.session_reset FROM turns t
               WHERE t.project_id = s.project_id AND t.session_reset IS NOT NULL
                 AND t.started_at <= s.ended_at
                 AND (t.finished_at IS NULL OR t.finished_at >= s.ended_at)
               ORDER BY t.started_at DESC LIMIT 1),
             'ended') END
      FROM agent_sessions s`.execute(db);
  await sql`INSERT INTO engine_transcripts (session_id, claude_session_id, project_dir, turn_id,
      updated_at)
    SELECT agent_session_id::text, claude_session_id, project_dir, turn_id::text, updated_at
      FROM agent_session_transcripts`.execute(db);
  await sql`INSERT INTO engine_transcript_parts (session_id, seq, content, turn_id)
    SELECT agent_session_id::text, seq, content, turn_id::text
      FROM agent_session_transcript_parts`.execute(db);
  await sql`ALTER TABLE turns DROP CONSTRAINT turns_agent_session_id_fkey`.execute(db);
  await sql`ALTER TABLE turns ALTER COLUMN agent_session_id TYPE text
    USING agent_session_id::text`.execute(db);
  await sql`ALTER TABLE turns ADD CONSTRAINT turns_agent_session_id_fkey
    FOREIGN KEY (agent_session_id) REFERENCES engine_sessions (id)`.execute(db);
  await sql`DROP TABLE agent_session_transcript_parts`.execute(db);
  await sql`DROP TABLE agent_session_transcripts`.execute(db);
  await sql`DROP TABLE agent_sessions`.execute(db);
}

/** Forward only: the rows moved, and the engine's tables may hold sessions of other hosts. */
async function down(): Promise<void> {
  await Promise.reject(new Error("migration 0017_engine_sessions cannot be undone"));
}

export const engineSessions: Migration = { up, down };
