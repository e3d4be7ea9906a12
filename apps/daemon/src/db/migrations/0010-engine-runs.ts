import { sql, type Kysely } from "kysely";

/**
 * What each turn's run did and cost moves to the turn engine's table (issue 50; migration
 * `engine/0002-runs`, which runs before this one): every turn is one run, keyed by the turn's
 * id, owned by its agent (`agent:<id>`, its sessions' owner), and its values are copied as they
 * are. Plain SQL only: a migration never imports code that can change after it ships.
 *
 * A turn's state becomes the run's outcome (`completed` is `succeeded`; `running`, `failed` and
 * `interrupted` keep their names), its failure reason the run's failure code, the runtime
 * session it resumed and reported the run's Claude session ids. The daemon's turn keeps what is
 * its own: its delivery, agent, conversation, attempt, state, events and times. A turn's session
 * is its run's (the foreign key and the index by session go with the column).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`INSERT INTO engine_runs (turn_id, owner, session_id, outcome, resumed,
      resumed_claude_session_id, claude_session_id, claude_version, process, cold_reason,
      process_marker, failure_code, failure_message, exit_code, usage_source, requests,
      input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens,
      cache_write_5m_tokens, cache_write_1h_tokens, session_input_tokens,
      session_cache_read_tokens, cost_usd, cumulative_cost_usd, cache_miss, cache_miss_phrase,
      cli_fallback, usage_limit, started_at, finished_at)
    SELECT id::text, 'agent:' || agent_id, session_id,
           CASE state WHEN 'completed' THEN 'succeeded' ELSE state END, resumed,
           resumed_runtime_session_id, runtime_session_id, claude_version, process, cold_reason,
           process_marker, failure_reason, failure_message, exit_code, usage_source, requests,
           input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens,
           cache_write_5m_tokens, cache_write_1h_tokens, session_input_tokens,
           session_cache_read_tokens, cost_usd, cumulative_cost_usd, cache_miss, cache_miss_phrase,
           cli_fallback, usage_limit, started_at, finished_at
      FROM turns`.execute(db);
  await sql`ALTER TABLE turns DROP CONSTRAINT turns_session_id_fkey`.execute(db);
  await sql`DROP INDEX turns_by_session`.execute(db);
  await sql`ALTER TABLE turns
    DROP COLUMN session_id, DROP COLUMN resumed, DROP COLUMN resumed_runtime_session_id,
    DROP COLUMN runtime_session_id, DROP COLUMN claude_version, DROP COLUMN process,
    DROP COLUMN cold_reason, DROP COLUMN process_marker, DROP COLUMN failure_reason,
    DROP COLUMN failure_message, DROP COLUMN exit_code, DROP COLUMN usage_source,
    DROP COLUMN requests, DROP COLUMN input_tokens, DROP COLUMN cache_creation_input_tokens,
    DROP COLUMN cache_read_input_tokens, DROP COLUMN output_tokens,
    DROP COLUMN cache_write_5m_tokens, DROP COLUMN cache_write_1h_tokens,
    DROP COLUMN session_input_tokens, DROP COLUMN session_cache_read_tokens,
    DROP COLUMN cost_usd, DROP COLUMN cumulative_cost_usd, DROP COLUMN cache_miss,
    DROP COLUMN cache_miss_phrase, DROP COLUMN cli_fallback, DROP COLUMN usage_limit`.execute(db);
}
