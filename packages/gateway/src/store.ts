import { gunzipSync, gzipSync } from "node:zlib";
import { sql, type Kysely } from "kysely";
import type { MissExplanation, PromptBlock, PromptShape } from "./cache-miss.ts";
import { periodStarts, type LimitReached, type UsedAmounts } from "./limits.ts";
import type { RequestUsage } from "./usage.ts";

/** Who a request is for: the process's project, and the turn it runs when it was sent. */
export interface Attribution {
  readonly projectKey: string;
  readonly userKey: string | null;
  readonly turnId: string | null;
  readonly sessionKey: string | null;
}

/** One request as stored. */
export interface RequestRecord extends Attribution {
  readonly at: number;
  readonly claudeSessionId: string | null;
  readonly method: string;
  readonly path: string;
  readonly model: string | null;
  readonly status: number;
  readonly refusal: LimitReached | null;
  readonly usage: RequestUsage | null;
  readonly costUsd: number;
  readonly miss: MissExplanation | null;
  readonly missPhrase: string | null;
}

/** A session's latest prompt (for a model), as the next request is compared with it. */
export interface StoredPrompt extends PromptShape {
  readonly at: number;
  readonly promptTokens: number;
}

/** A turn's requests, summed: the exact usage and cost the provider reported. */
export interface TurnUsage {
  readonly requests: number;
  readonly inputTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly cacheReadTokens: number;
  readonly outputTokens: number;
  /** USD, to 1e-10. */
  readonly costUsd: number;
  /** The models that answered, in the order they first did. */
  readonly models: readonly string[];
  /** Why the turn's first request missed the prompt cache (or kept it). */
  readonly miss: MissExplanation | null;
  /** The host's name for that first miss (`nameMiss`), or null. */
  readonly missPhrase: string | null;
  /** The host's names for every change the turn's requests met, in order, without repeats. */
  readonly phrases: readonly string[];
}

/** A project's (or a user's) spend and tokens in the current UTC day and month. */
export interface ProjectTotals {
  readonly day: { readonly since: string; readonly usd: number; readonly tokens: number };
  readonly month: { readonly since: string; readonly usd: number; readonly tokens: number };
}

const TOKENS = sql`(input_tokens + cache_write_5m_tokens + cache_write_1h_tokens + cache_read_tokens + output_tokens)`;

/** The gateway's rows in the host's database (its tables: migrations/0001-requests.ts). */
export class GatewayStore {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async insertRequest(row: RequestRecord): Promise<void> {
    const usage = row.usage;
    await sql`INSERT INTO gateway_requests (
        at, project_key, user_key, turn_id, session_key, claude_session_id, method, path, model,
        status, refusal, input_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
        cache_read_tokens, output_tokens, cost_usd, miss, miss_phrase)
      VALUES (${iso(row.at)}::timestamptz, ${row.projectKey}, ${row.userKey}, ${row.turnId},
        ${row.sessionKey}, ${row.claudeSessionId}, ${row.method}, ${row.path}, ${row.model},
        ${row.status}, ${row.refusal === null ? null : JSON.stringify(row.refusal)}::jsonb,
        ${usage?.inputTokens ?? 0}, ${usage?.cacheWrite5mTokens ?? 0},
        ${usage?.cacheWrite1hTokens ?? 0}, ${usage?.cacheReadTokens ?? 0},
        ${usage?.outputTokens ?? 0}, ${row.costUsd}::numeric,
        ${row.miss === null ? null : JSON.stringify(row.miss)}::jsonb, ${row.missPhrase})`.execute(
      this.#db,
    );
  }

  async previousPrompt(claudeSessionId: string, model: string): Promise<StoredPrompt | null> {
    const { rows } = await sql<{
      at_ms: number;
      prompt_tokens: number;
      ttl_ms: number | null;
      blocks: Uint8Array;
    }>`SELECT (extract(epoch FROM at) * 1000)::float8 AS at_ms, prompt_tokens::float8 AS prompt_tokens,
          ttl_ms, blocks
        FROM gateway_session_prompts WHERE claude_session_id = ${claudeSessionId} AND model = ${model}`.execute(
      this.#db,
    );
    const row = rows[0];
    if (row === undefined) return null;
    const blocks = JSON.parse(gunzipSync(row.blocks).toString("utf8")) as PromptBlock[];
    return { at: row.at_ms, promptTokens: row.prompt_tokens, ttlMs: row.ttl_ms, blocks };
  }

  async savePrompt(claudeSessionId: string, model: string, prompt: StoredPrompt): Promise<void> {
    const blocks = gzipSync(JSON.stringify(prompt.blocks));
    await sql`INSERT INTO gateway_session_prompts (claude_session_id, model, at, prompt_tokens, ttl_ms, blocks)
      VALUES (${claudeSessionId}, ${model}, ${iso(prompt.at)}::timestamptz, ${prompt.promptTokens},
        ${prompt.ttlMs}, ${blocks})
      ON CONFLICT (claude_session_id, model) DO UPDATE SET at = excluded.at,
        prompt_tokens = excluded.prompt_tokens, ttl_ms = excluded.ttl_ms, blocks = excluded.blocks`.execute(
      this.#db,
    );
  }

  /** Forgets the prompts of sessions idle since before `before` (ms). */
  async pruneSessionPrompts(before: number): Promise<void> {
    await sql`DELETE FROM gateway_session_prompts WHERE at < ${iso(before)}::timestamptz`.execute(
      this.#db,
    );
  }

  /** What the project and the user used in the current UTC day and month, in one read. */
  async usedAmounts(
    scope: { readonly projectKey: string; readonly userKey: string | null },
    now: number,
  ): Promise<{ readonly project: UsedAmounts; readonly user: UsedAmounts | null }> {
    const { day, month } = periodStarts(now);
    const { rows } = await sql<Record<string, number>>`SELECT
        COALESCE(SUM(cost_usd) FILTER (WHERE project_key = ${scope.projectKey} AND at >= ${day.toISOString()}::timestamptz), 0)::float8 AS project_day_usd,
        COALESCE(SUM(${TOKENS}) FILTER (WHERE project_key = ${scope.projectKey} AND at >= ${day.toISOString()}::timestamptz), 0)::float8 AS project_day_tokens,
        COALESCE(SUM(cost_usd) FILTER (WHERE project_key = ${scope.projectKey}), 0)::float8 AS project_month_usd,
        COALESCE(SUM(${TOKENS}) FILTER (WHERE project_key = ${scope.projectKey}), 0)::float8 AS project_month_tokens,
        COALESCE(SUM(cost_usd) FILTER (WHERE user_key = ${scope.userKey} AND at >= ${day.toISOString()}::timestamptz), 0)::float8 AS user_day_usd,
        COALESCE(SUM(${TOKENS}) FILTER (WHERE user_key = ${scope.userKey} AND at >= ${day.toISOString()}::timestamptz), 0)::float8 AS user_day_tokens,
        COALESCE(SUM(cost_usd) FILTER (WHERE user_key = ${scope.userKey}), 0)::float8 AS user_month_usd,
        COALESCE(SUM(${TOKENS}) FILTER (WHERE user_key = ${scope.userKey}), 0)::float8 AS user_month_tokens
      FROM gateway_requests
      WHERE at >= ${month.toISOString()}::timestamptz
        AND (project_key = ${scope.projectKey} OR user_key = ${scope.userKey})`.execute(this.#db);
    const r = rows[0] ?? {};
    const amounts = (prefix: string): UsedAmounts => ({
      day: { usd: r[`${prefix}_day_usd`] ?? 0, tokens: r[`${prefix}_day_tokens`] ?? 0 },
      month: { usd: r[`${prefix}_month_usd`] ?? 0, tokens: r[`${prefix}_month_tokens`] ?? 0 },
    });
    return { project: amounts("project"), user: scope.userKey === null ? null : amounts("user") };
  }

  /** What a project, or a user (`scope: "user"`), used in the current UTC day and month. */
  async totals(scope: "project" | "user", key: string, now: number): Promise<ProjectTotals> {
    const { day, month } = periodStarts(now);
    const column = sql.ref(scope === "project" ? "project_key" : "user_key");
    const { rows } = await sql<Record<string, number>>`SELECT
        COALESCE(SUM(cost_usd) FILTER (WHERE at >= ${day.toISOString()}::timestamptz), 0)::float8 AS day_usd,
        COALESCE(SUM(${TOKENS}) FILTER (WHERE at >= ${day.toISOString()}::timestamptz), 0)::float8 AS day_tokens,
        COALESCE(SUM(cost_usd), 0)::float8 AS month_usd,
        COALESCE(SUM(${TOKENS}), 0)::float8 AS month_tokens
      FROM gateway_requests
      WHERE ${column} = ${key} AND at >= ${month.toISOString()}::timestamptz`.execute(this.#db);
    const r = rows[0] ?? {};
    return {
      day: { since: day.toISOString(), usd: r["day_usd"] ?? 0, tokens: r["day_tokens"] ?? 0 },
      month: {
        since: month.toISOString(),
        usd: r["month_usd"] ?? 0,
        tokens: r["month_tokens"] ?? 0,
      },
    };
  }

  async turnUsage(turnId: string): Promise<TurnUsage | null> {
    const { rows } = await sql<{
      model: string | null;
      input_tokens: number;
      cache_write_5m_tokens: number;
      cache_write_1h_tokens: number;
      cache_read_tokens: number;
      output_tokens: number;
      cost_usd: string;
      miss: MissExplanation | string | null;
      miss_phrase: string | null;
      refused: boolean;
    }>`SELECT model, input_tokens::float8 AS input_tokens,
          cache_write_5m_tokens::float8 AS cache_write_5m_tokens,
          cache_write_1h_tokens::float8 AS cache_write_1h_tokens,
          cache_read_tokens::float8 AS cache_read_tokens, output_tokens::float8 AS output_tokens,
          cost_usd::text AS cost_usd, miss, miss_phrase, refusal IS NOT NULL AS refused
        FROM gateway_requests WHERE turn_id = ${turnId} ORDER BY id`.execute(this.#db);
    if (rows.length === 0) return null;
    const sum = (pick: (row: (typeof rows)[number]) => number): number =>
      rows.reduce((total, row) => total + pick(row), 0);
    const models: string[] = [];
    const phrases: string[] = [];
    for (const row of rows) {
      if (row.model !== null && !models.includes(row.model)) models.push(row.model);
      if (row.miss_phrase !== null && !phrases.includes(row.miss_phrase))
        phrases.push(row.miss_phrase);
    }
    const first = rows.find((row) => row.miss !== null);
    return {
      requests: rows.filter((row) => !row.refused).length,
      inputTokens: sum((r) => r.input_tokens),
      cacheWrite5mTokens: sum((r) => r.cache_write_5m_tokens),
      cacheWrite1hTokens: sum((r) => r.cache_write_1h_tokens),
      cacheReadTokens: sum((r) => r.cache_read_tokens),
      outputTokens: sum((r) => r.output_tokens),
      // Summed as decimals (1e-10 units), so the total is exactly the stored amounts' sum.
      costUsd: Number(rows.reduce((total, row) => total + decimalUnits(row.cost_usd), 0n)) / 1e10,
      models,
      miss: first === undefined ? null : jsonOf<MissExplanation>(first.miss),
      missPhrase: first?.miss_phrase ?? null,
      phrases,
    };
  }

  /** The limit refusal recorded on a turn (the latest), or null. */
  async refusalOf(turnId: string): Promise<LimitReached | null> {
    const { rows } = await sql<{
      refusal: LimitReached | string;
    }>`SELECT refusal FROM gateway_requests
      WHERE turn_id = ${turnId} AND refusal IS NOT NULL ORDER BY id DESC LIMIT 1`.execute(this.#db);
    const row = rows[0];
    return row === undefined ? null : jsonOf<LimitReached>(row.refusal);
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A jsonb value: an object from either driver (a string should one hand the text back). */
function jsonOf<T>(value: T | string | null): T | null {
  if (value === null) return null;
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

/** `numeric(20,10)` text as a whole number of 1e-10 USD. */
function decimalUnits(text: string): bigint {
  const [whole = "0", fraction = ""] = text.split(".");
  return BigInt(whole) * 10_000_000_000n + BigInt(fraction.padEnd(10, "0").slice(0, 10));
}
