import { sql, type Kysely } from "kysely";

/**
 * The gateway's tables (issue 51). `gateway_requests`: one row per request a process sent
 * through the gateway (forwarded, or refused over a limit), with who it was for (the host's
 * project, user, turn and session keys, the CLI's session id), the provider's exact usage
 * (cache writes split by lifetime), its cost and why its prompt cache missed. Limits are sums
 * over these rows, so every instance on one database sees the same totals.
 * `gateway_session_prompts`: the latest prompt of each CLI session and model (gzip of its
 * flattened blocks), which the next request of the session is compared with, on any instance
 * and after a restart.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE gateway_requests (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at timestamptz NOT NULL,
    project_key text NOT NULL,
    user_key text,
    turn_id text,
    session_key text,
    claude_session_id text,
    method text NOT NULL,
    path text NOT NULL,
    model text,
    status integer NOT NULL,
    refusal jsonb,
    input_tokens bigint NOT NULL DEFAULT 0,
    cache_write_5m_tokens bigint NOT NULL DEFAULT 0,
    cache_write_1h_tokens bigint NOT NULL DEFAULT 0,
    cache_read_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cost_usd numeric(20, 10) NOT NULL DEFAULT 0,
    miss jsonb,
    miss_phrase text
  )`.execute(db);
  await sql`CREATE INDEX gateway_requests_turn ON gateway_requests (turn_id, id)
    WHERE turn_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX gateway_requests_project_at ON gateway_requests (project_key, at)`.execute(
    db,
  );
  await sql`CREATE INDEX gateway_requests_user_at ON gateway_requests (user_key, at)
    WHERE user_key IS NOT NULL`.execute(db);
  await sql`CREATE TABLE gateway_session_prompts (
    claude_session_id text NOT NULL,
    model text NOT NULL,
    at timestamptz NOT NULL,
    prompt_tokens bigint NOT NULL,
    ttl_ms integer,
    blocks bytea NOT NULL,
    PRIMARY KEY (claude_session_id, model)
  )`.execute(db);
  await sql`CREATE INDEX gateway_session_prompts_at ON gateway_session_prompts (at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE gateway_session_prompts`.execute(db);
  await sql`DROP TABLE gateway_requests`.execute(db);
}
