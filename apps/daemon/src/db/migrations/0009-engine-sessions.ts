import { sql, type Kysely } from "kysely";

/**
 * Sessions and their transcripts move to the turn engine's tables (issue 50; migration
 * `engine/0001-sessions`, which runs before this one): every row is copied as it is, and the
 * daemon's own tables go. Plain SQL only: a migration never imports code that can change after
 * it ships.
 *
 * A session's scope is its conversation (`agent:<id>/conversation:<id>`, the warm pool's key),
 * its owner the agent (`agent:<id>`), its pin the standing prompt version it started with; an
 * invalidated session is an ended one, with the same reason. `runtime` is not copied: it was
 * the agent's runtime, which the agent still has. A stored transcript's own content becomes its
 * part 0 (the parts later turns appended number from 1), so the parts joined are the same
 * bytes. Turns keep referencing their sessions, now by text id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`INSERT INTO engine_sessions (id, scope, owner, conversation, pin, claude_session_id,
      resume_at_message_id, turn_count, cumulative_cost_usd, created_at, updated_at, ended_at,
      end_reason)
    SELECT id::text, 'agent:' || agent_id || '/conversation:' || conversation_id,
           'agent:' || agent_id, conversation_id, standing_prompt_version, runtime_session_id,
           resume_at_message_id, turn_count, cumulative_cost_usd, created_at, updated_at,
           invalidated_at, invalidated_reason
      FROM sessions`.execute(db);
  await sql`INSERT INTO engine_transcripts (session_id, claude_session_id, project_dir, turn_id,
      updated_at)
    SELECT session_id::text, runtime_session_id, project_dir, turn_id::text, updated_at
      FROM session_transcripts`.execute(db);
  await sql`INSERT INTO engine_transcript_parts (session_id, seq, content, turn_id)
    SELECT session_id::text, 0, content, turn_id::text FROM session_transcripts
     WHERE content <> ''
    UNION ALL
    SELECT session_id::text, seq, content, turn_id::text FROM session_transcript_parts`.execute(db);
  await sql`ALTER TABLE turns DROP CONSTRAINT turns_session_id_fkey`.execute(db);
  await sql`ALTER TABLE turns ALTER COLUMN session_id TYPE text USING session_id::text`.execute(db);
  await sql`ALTER TABLE turns ADD CONSTRAINT turns_session_id_fkey FOREIGN KEY (session_id)
    REFERENCES engine_sessions (id) ON DELETE CASCADE`.execute(db);
  await sql`DROP TABLE session_transcript_parts`.execute(db);
  await sql`DROP TABLE session_transcripts`.execute(db);
  await sql`DROP TABLE sessions`.execute(db);
}
