import { sql, type Kysely } from "kysely";

/**
 * The engine's record of each run of a turn (issue 50): one row per attempt of a host's turn,
 * keyed by the host's turn id. What the CLI did and cost lives here once for every host: the
 * process the run used, the CLI session it reported, how it ended (the engine's safe failure
 * code and message, never the CLI's words), its tokens and cost, the cache line of its first
 * request and the limit a request was refused over. Plain SQL only: a migration never imports
 * code that can change after it ships.
 *
 * - `owner`: what the host deletes runs by (the sessions' `owner`: a project, an agent); a run
 *   that failed before it had a session has no other link.
 * - `outcome`: `running` until the run ends `succeeded`, `failed`, `interrupted` (its host
 *   stopped during it) or `stopped` (a person stopped it).
 * - `session_input_tokens`, `session_cache_read_tokens`: the session's totals so far, this run
 *   included (bigint); `cumulative_cost_usd`: its session's cost after the run.
 * - `cache_miss`: the gateway's explanation of the first request's miss; `cache_miss_phrase`
 *   the host's words for it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE engine_runs (
    turn_id text PRIMARY KEY,
    owner text NOT NULL,
    session_id text REFERENCES engine_sessions (id) ON DELETE CASCADE,
    outcome text NOT NULL DEFAULT 'running'
      CHECK (outcome IN ('running', 'succeeded', 'failed', 'interrupted', 'stopped')),
    resumed boolean NOT NULL DEFAULT false,
    resumed_claude_session_id text,
    claude_session_id text,
    claude_version text,
    process text CHECK (process IN ('warm', 'cold')),
    cold_reason text,
    process_marker text,
    failure_code text,
    failure_message text,
    exit_code integer,
    usage_source text CHECK (usage_source IN ('gateway', 'cli')),
    requests integer,
    input_tokens integer,
    cache_creation_input_tokens integer,
    cache_read_input_tokens integer,
    output_tokens integer,
    cache_write_5m_tokens integer,
    cache_write_1h_tokens integer,
    session_input_tokens bigint,
    session_cache_read_tokens bigint,
    cost_usd double precision,
    cumulative_cost_usd double precision,
    cache_miss jsonb,
    cache_miss_phrase text,
    cli_fallback text,
    usage_limit jsonb,
    started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz
  )`.execute(db);
  await sql`CREATE INDEX engine_runs_by_session ON engine_runs (session_id, started_at)
    WHERE session_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX engine_runs_owner ON engine_runs (owner)`.execute(db);
  await sql`CREATE INDEX engine_runs_running ON engine_runs (turn_id)
    WHERE outcome = 'running'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE engine_runs`.execute(db);
}
