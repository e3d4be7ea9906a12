/**
 * Every statement on `engine_runs` (migration `engine/0002-runs`): a run starts, learns its
 * process, and ends; a host reads its turns' runs back by id. A success ends its run in the
 * engine's success statement (`recordSuccess` with `run`, in session-store.ts).
 */
import { allInputTokens, type TokenUsage } from "@talkide/claude-cli";
import { sql, type Kysely, type RawBuilder, type Selectable } from "kysely";
import { usageColumns } from "../usage-columns.ts";
import type { HostSteps } from "./host-steps.ts";
import { sessionTotalAfter, totalAfter } from "./totals.ts";
import type { EngineRunsTable, EngineTables } from "./tables.ts";

/** The host's database as the engine's (`engineDb` of session-store.ts, which imports this one). */
type EngineDb = Kysely<EngineTables>;

export type RunRow = Selectable<EngineRunsTable>;

/** How a run's process started: kept warm or started cold (and why), and the marker it carries. */
export interface RunProcess {
  readonly kind: "warm" | "cold";
  readonly coldReason: string | null;
  /** The turn marker its process carries: the id of the turn that started it. */
  readonly marker: string;
}

export interface RunStart {
  /** The host's turn (or attempt) id: a run is one attempt. */
  readonly turnId: string;
  /** What the host deletes runs by (its sessions' owner). */
  readonly owner: string;
  /** The session the run continues or starts in; null when the host has none yet. */
  readonly sessionId: string | null;
  /** The CLI session the run resumes; null for a fresh one. */
  readonly resumedFrom: string | null;
  readonly claudeVersion?: string | null | undefined;
  /** Known already when the run takes a kept process; else `recordRunProcess` follows. */
  readonly process?: RunProcess | null | undefined;
}

/** What a run used and cost: the gateway's figures of its requests, or the CLI's report. */
export interface RunFigures {
  /** USD; null when nothing reported a cost. */
  readonly costUsd: number | null;
  readonly usage: TokenUsage | null;
  readonly source?: "gateway" | "cli" | null | undefined;
  /** Requests the gateway forwarded for the run. */
  readonly requests?: number | null | undefined;
  readonly cacheWrite5mTokens: number | null;
  readonly cacheWrite1hTokens: number | null;
  /** The gateway's explanation of the first request's cache miss, and the host's words for it. */
  readonly cacheMiss: unknown;
  readonly cacheMissPhrase: string | null;
}

/** How a run ended that did not succeed. */
export interface RunEnd {
  readonly turnId: string;
  /** Used when the run is recorded here for the first time (it failed before it started). */
  readonly owner: string;
  readonly outcome: "failed" | "interrupted" | "stopped";
  /** The engine's safe code and message (never the CLI's words); null for a stopped run. */
  readonly failure: { readonly code: string; readonly message: string } | null;
  /** The session it ran in: charged what it cost. Null or absent: none is charged. */
  readonly sessionId?: string | null | undefined;
  /** The CLI session it reported; absent: leave what is stored. */
  readonly claudeSessionId?: string | null | undefined;
  readonly exitCode?: number | null | undefined;
  /** What it used and cost; null: not known (nothing is charged, the stored figures stay). */
  readonly figures: RunFigures | null;
  /** The limit the gateway refused one of its requests over. */
  readonly usageLimit?: unknown;
}

export interface RunEnded {
  /** False when the run had ended already: nothing changed. */
  readonly ended: boolean;
  /** Its session's total after it (null: no session charged, or no cost). */
  readonly cumulativeCostUsd: number | null;
}

/** The columns of a run's figures. */
function figureColumns(figures: RunFigures) {
  return {
    cost_usd: figures.costUsd,
    ...usageColumns(figures.usage),
    usage_source: figures.source ?? null,
    requests: figures.requests ?? null,
    cache_write_5m_tokens: figures.cacheWrite5mTokens,
    cache_write_1h_tokens: figures.cacheWrite1hTokens,
    cache_miss: jsonOrNull(figures.cacheMiss),
    cache_miss_phrase: figures.cacheMissPhrase,
  };
}

function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * Records that a run starts, in one statement with the host's own steps beside it (its turn's
 * row, say: one round trip, and neither written without the other). A second attempt of the
 * same turn (the CLI no longer knew the session) starts again in the same row: its session,
 * resume point and process are replaced.
 */
export async function startRun(
  db: EngineDb,
  start: RunStart,
  alongside?: HostSteps,
): Promise<void> {
  const process = start.process ?? null;
  const values = {
    session_id: start.sessionId,
    resumed: start.resumedFrom !== null,
    resumed_claude_session_id: start.resumedFrom,
    claude_version: start.claudeVersion ?? null,
    process: process?.kind ?? null,
    cold_reason: process?.coldReason ?? null,
    process_marker: process?.marker ?? null,
  };
  const started = db
    .insertInto("engine_runs")
    .values({
      turn_id: start.turnId,
      owner: start.owner,
      ...values,
    })
    .onConflict((conflict) => conflict.column("turn_id").doUpdateSet(values));
  if (alongside === undefined) {
    await started.execute();
    return;
  }
  await sql`WITH started_run AS (${started.returning("turn_id")}), ${alongside.steps(sql``)}
    SELECT 1`.execute(db);
}

/** How the run's process started; stored before its message is sent. */
export async function recordRunProcess(
  db: EngineDb,
  turnId: string,
  process: RunProcess,
): Promise<void> {
  await db
    .updateTable("engine_runs")
    .set({
      process: process.kind,
      cold_reason: process.coldReason,
      process_marker: process.marker,
    })
    .where("turn_id", "=", turnId)
    .execute();
}

/**
 * Ends a run that did not succeed, in one statement: its outcome, failure and figures, and
 * what it cost charged to its session (a session's total is the sum of its runs, failed ones
 * included). Only a running run ends: one that ended already (recovery, a stop) stays as it
 * is. A run that was never started (its turn failed before a process was chosen) is recorded
 * here.
 */
export async function finishRun(db: EngineDb, end: RunEnd): Promise<RunEnded> {
  const sessionId = end.sessionId ?? null;
  const charged = sessionId !== null && end.figures !== null;
  const costUsd = end.figures?.costUsd ?? null;
  const ending = {
    outcome: end.outcome,
    failure_code: end.failure?.code ?? null,
    failure_message: end.failure?.message ?? null,
    ...(sessionId === null ? {} : { session_id: sessionId }),
    ...(end.claudeSessionId === undefined ? {} : { claude_session_id: end.claudeSessionId }),
    ...(end.exitCode === undefined ? {} : { exit_code: end.exitCode }),
    ...(end.figures === null ? {} : figureColumns(end.figures)),
    ...(charged ? { cumulative_cost_usd: sessionTotalAfter(sessionId, costUsd) } : {}),
    ...(end.usageLimit === undefined ? {} : { usage_limit: jsonOrNull(end.usageLimit) }),
    finished_at: sql<string>`clock_timestamp()`,
  };
  const ended = db
    .insertInto("engine_runs")
    .values({ turn_id: end.turnId, owner: end.owner, ...ending })
    .onConflict((conflict) =>
      conflict.column("turn_id").doUpdateSet(ending).where("engine_runs.outcome", "=", "running"),
    )
    .returning("turn_id");
  const { rows } = await sql<{ ended: boolean; total: number | null }>`
    WITH ended AS (${ended}),
    charged AS (
      UPDATE engine_sessions
         SET cumulative_cost_usd = ${totalAfter(sql.ref("cumulative_cost_usd"), costUsd)},
             updated_at = clock_timestamp()
       WHERE id = ${sessionId}::text AND ${charged} AND EXISTS (SELECT 1 FROM ended)
      RETURNING cumulative_cost_usd)
    SELECT EXISTS (SELECT 1 FROM ended) AS ended,
           (SELECT cumulative_cost_usd FROM charged) AS total`.execute(db);
  const row = rows[0];
  return { ended: row?.ended === true, cumulativeCostUsd: row?.total ?? null };
}

/** What a successful run stores beside its session's point (`SessionSuccess.run`). */
export interface RunSuccess {
  readonly figures: RunFigures;
  /** The CLI's fallback during the run that makes the session's later requests heavier. */
  readonly cliFallback: string | null;
  readonly exitCode?: number | null | undefined;
}

/** The session's totals with a successful run, as the success statement returns them. */
export interface RunTotals {
  readonly sessionInputTokens: number | null;
  readonly sessionCacheReadTokens: number | null;
  readonly cumulativeCostUsd: number | null;
}

/**
 * The success statement's step that ends the run (`finished_run`): succeeded in the session it
 * advanced, with its figures, the session's token totals so far and its cost after the run.
 * Read by `recordSuccess` (session-store.ts); `when` narrows it as every step of the statement.
 */
export function runSuccessStep(
  turnId: string,
  sessionId: string,
  claudeSessionId: string,
  run: RunSuccess,
  when: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const { figures } = run;
  const columns = figureColumns(figures);
  const totals = sessionTokenTotals(sessionId, turnId, figures.usage);
  return sql`finished_run AS (
      UPDATE engine_runs
         SET outcome = 'succeeded', session_id = ${sessionId}, claude_session_id = ${claudeSessionId},
             failure_code = NULL, failure_message = NULL, exit_code = ${run.exitCode ?? null}::int,
             cost_usd = ${columns.cost_usd}::double precision,
             input_tokens = ${columns.input_tokens}::int,
             cache_creation_input_tokens = ${columns.cache_creation_input_tokens}::int,
             cache_read_input_tokens = ${columns.cache_read_input_tokens}::int,
             output_tokens = ${columns.output_tokens}::int,
             usage_source = ${columns.usage_source}::text, requests = ${columns.requests}::int,
             cache_write_5m_tokens = ${columns.cache_write_5m_tokens}::int,
             cache_write_1h_tokens = ${columns.cache_write_1h_tokens}::int,
             cache_miss = ${columns.cache_miss}::jsonb, cache_miss_phrase = ${columns.cache_miss_phrase}::text,
             session_input_tokens = ${totals.input}, session_cache_read_tokens = ${totals.cacheRead},
             -- Read before the statement's update of the session: its total after this run.
             cumulative_cost_usd = ${sessionTotalAfter(sessionId, figures.costUsd)},
             cli_fallback = ${run.cliFallback}::text, finished_at = clock_timestamp()
       WHERE turn_id = ${turnId} AND outcome = 'running' ${when}
      RETURNING session_input_tokens, session_cache_read_tokens, cumulative_cost_usd)`;
}

/** The statement's result expression of the `finished_run` step. */
export const runSuccessResult = sql`(SELECT jsonb_build_object(
    'sessionInputTokens', r.session_input_tokens, 'sessionCacheReadTokens', r.session_cache_read_tokens,
    'cumulativeCostUsd', r.cumulative_cost_usd) FROM finished_run r)`;

/**
 * The session's running token totals with this run: the latest earlier run of the session that
 * carries them (one step back along `engine_runs_by_session`, whatever the session's length),
 * plus this run's. Null when the run reported no tokens.
 */
function sessionTokenTotals(
  sessionId: string,
  turnId: string,
  usage: TokenUsage | null,
): { readonly input: RawBuilder<unknown>; readonly cacheRead: RawBuilder<unknown> } {
  if (usage === null) return { input: sql`NULL::bigint`, cacheRead: sql`NULL::bigint` };
  const previous = (column: "session_input_tokens" | "session_cache_read_tokens") =>
    sql`COALESCE((SELECT p.${sql.ref(column)} FROM engine_runs p
                   WHERE p.session_id = ${sessionId} AND p.turn_id <> ${turnId}
                     AND p.${sql.ref(column)} IS NOT NULL
                   ORDER BY p.started_at DESC LIMIT 1), 0)`;
  return {
    input: sql`${previous("session_input_tokens")} + ${allInputTokens(usage)}::bigint`,
    cacheRead: sql`${previous("session_cache_read_tokens")} + ${usage.cacheReadInputTokens}::bigint`,
  };
}

/** The runs of these turns, by turn id (a turn that never ran has none). */
export async function runsOf(
  db: EngineDb,
  turnIds: readonly string[],
): Promise<ReadonlyMap<string, RunRow>> {
  if (turnIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("engine_runs")
    .selectAll()
    .where("turn_id", "in", [...turnIds])
    .execute();
  return new Map(
    rows.map((row) => [
      row.turn_id,
      { ...row, cache_miss: parsedJson(row.cache_miss), usage_limit: parsedJson(row.usage_limit) },
    ]),
  );
}

/** A driver may hand jsonb back as text. */
function parsedJson(value: unknown): unknown {
  return typeof value === "string" ? (JSON.parse(value) as unknown) : value;
}

/**
 * The turns that ran in a session, oldest first: a host lists a session's turns by them (its
 * own rows do not say which session a turn ran in).
 */
export async function turnIdsOfSession(db: EngineDb, sessionId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("engine_runs")
    .select("turn_id")
    .where("session_id", "=", sessionId)
    .orderBy("started_at")
    .orderBy("turn_id")
    .execute();
  return rows.map((row) => row.turn_id);
}

/**
 * The marker values the turns' processes carry: each turn's own id, and for a warm run the id
 * of the earlier turn that started its process.
 */
export async function processMarkersOf(
  db: EngineDb,
  turnIds: readonly string[],
): Promise<string[]> {
  if (turnIds.length === 0) return [];
  const rows = await db
    .selectFrom("engine_runs")
    .select("process_marker")
    .where("turn_id", "in", [...turnIds])
    .where("process_marker", "is not", null)
    .execute();
  const markers = new Set(turnIds);
  for (const row of rows) if (row.process_marker !== null) markers.add(row.process_marker);
  return [...markers];
}

/** Deletes an owner's runs (a deleted project or agent). */
export async function deleteRunsOf(db: EngineDb, owner: string): Promise<void> {
  await db.deleteFrom("engine_runs").where("owner", "=", owner).execute();
}
