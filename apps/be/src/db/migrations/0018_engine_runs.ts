import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * The turn engine owns the runs (issue 50): what the CLI did and cost for a turn moves from the
 * turn's row to the engine's `engine_runs` (`engine/0002-runs`, which runs before the backend's
 * list), one run per turn, keyed by the turn's id. The turn keeps what is the backend's own:
 * its member, message, status, what members were told of a failure (`error_code`,
 * `error_message`), the answer, its times, the instruction files found, the demo model, who
 * stopped it and why its session was reset.
 *
 * - Every turn that left the queue has a run: one that ran or is running, and one settled
 *   while it waited (failed or stopped before it was claimed: its run never started, as the
 *   engine records a turn that fails before its process). A queued turn has none yet.
 * - owner is the project's warm pool key, `project:<id>` (its sessions' owner); session_id the
 *   engine session the turn ran in; outcome its status (`queued` never appears).
 * - failure_code and failure_message: a failed turn's code and message, as members read them.
 * - resumed_claude_session_id: the CLI session a resumed turn continued, which is where the
 *   session's previous successful turn left it.
 * - cache_miss: the gateway's explanation as the turn stored it, without the backend's phrase,
 *   which is cache_miss_phrase now.
 * - usage_source: `gateway` where the turn has the gateway's cache writes (migration 0016 on),
 *   `cli` where it has only the CLI's tokens (0011 to 0016), else null; requests, exit code,
 *   CLI version and usage limit were never stored: null.
 * - started_at: when the turn started, or for one settled while queued, when it was sent.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await sql`INSERT INTO engine_runs (turn_id, owner, session_id, outcome, resumed,
      resumed_claude_session_id, claude_session_id, process, cold_reason, process_marker,
      failure_code, failure_message, usage_source, input_tokens, cache_creation_input_tokens,
      cache_read_input_tokens, output_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
      session_input_tokens, session_cache_read_tokens, cost_usd, cumulative_cost_usd, cache_miss,
      cache_miss_phrase, cli_fallback, started_at, finished_at)
    SELECT t.id::text, 'project:' || t.project_id, t.agent_session_id, t.status, t.resumed,
           CASE WHEN t.resumed THEN before.claude_session_id END,
           t.claude_session_id, t.process, t.cold_reason, t.process_marker,
           CASE WHEN t.status = 'failed' THEN t.error_code END,
           CASE WHEN t.status = 'failed' THEN t.error_message END,
           CASE WHEN t.cache_write_5m_tokens IS NOT NULL THEN 'gateway'
                WHEN t.input_tokens IS NOT NULL THEN 'cli' END,
           t.input_tokens, t.cache_creation_input_tokens, t.cache_read_input_tokens,
           t.output_tokens, t.cache_write_5m_tokens, t.cache_write_1h_tokens,
           t.session_input_tokens, t.session_cache_read_tokens, t.cost_usd, t.cumulative_cost_usd,
           t.cache_miss - 'phrase', t.cache_miss ->> 'phrase', t.cli_fallback,
           COALESCE(t.started_at, t.created_at), t.finished_at
      FROM turns t
      -- Where the session stood before each of its successful turns: the previous one's point.
      LEFT JOIN (SELECT id, lag(claude_session_id) OVER (PARTITION BY agent_session_id
                                                        ORDER BY number) AS claude_session_id
                   FROM turns
                  WHERE status = 'succeeded' AND agent_session_id IS NOT NULL) before
        ON before.id = t.id
     WHERE t.status <> 'queued'`.execute(db);
  // The foreign key to engine_sessions and the check on cache_miss go with their columns.
  await sql`ALTER TABLE turns
    DROP COLUMN agent_session_id, DROP COLUMN claude_session_id, DROP COLUMN resumed,
    DROP COLUMN process, DROP COLUMN cold_reason, DROP COLUMN process_marker,
    DROP COLUMN input_tokens, DROP COLUMN cache_creation_input_tokens,
    DROP COLUMN cache_read_input_tokens, DROP COLUMN output_tokens,
    DROP COLUMN session_input_tokens, DROP COLUMN session_cache_read_tokens,
    DROP COLUMN cost_usd, DROP COLUMN cumulative_cost_usd,
    DROP COLUMN cache_write_5m_tokens, DROP COLUMN cache_write_1h_tokens,
    DROP COLUMN cache_miss, DROP COLUMN cli_fallback`.execute(db);
}

/** Forward only: the rows moved, and the engine's tables may hold runs of other hosts. */
async function down(): Promise<void> {
  await Promise.reject(new Error("migration 0018_engine_runs cannot be undone"));
}

export const engineRuns: Migration = { up, down };
