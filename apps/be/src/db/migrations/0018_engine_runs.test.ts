import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Turn, TurnRecord } from "@talkide/be-api";
import {
  engineDb,
  recordSuccess,
  runsOf,
  startRun,
  sessionCacheReuseOf,
  usageFromColumns,
  type RunRow,
} from "@talkide/turn-engine";
import { sql, type Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import { listTurns } from "../../domain/turns.ts";
import { databaseOfTheRelease, RELEASE } from "../../test-support/release-rows.ts";
import { openDatabase } from "../connect.ts";
import { migrateToLatest } from "../migrate.ts";
import { toRfc3339 } from "../timestamps.ts";

/** A turn's row as the release (migrations to 0016) stored it. */
interface ReleaseTurn {
  readonly id: string;
  readonly project_id: number;
  readonly number: number;
  readonly status: string;
  readonly agent_session_id: string | null;
  readonly claude_session_id: string | null;
  readonly resumed: boolean;
  readonly error_code: string | null;
  readonly error_message: string | null;
  readonly cost_usd: number | null;
  readonly cumulative_cost_usd: number | null;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly process: "warm" | "cold" | null;
  readonly cold_reason: string | null;
  readonly process_marker: string | null;
  readonly input_tokens: number | null;
  readonly cache_creation_input_tokens: number | null;
  readonly cache_read_input_tokens: number | null;
  readonly output_tokens: number | null;
  readonly session_input_tokens: string | number | null;
  readonly session_cache_read_tokens: string | number | null;
  readonly cli_fallback: "tool_search_off" | null;
  readonly cache_write_5m_tokens: number | null;
  readonly cache_write_1h_tokens: number | null;
  readonly cache_miss: ({ readonly phrase: string | null } & Record<string, unknown>) | null;
}

const members = RELEASE.tables.members as unknown as ReadonlyArray<{
  id: string;
  project_id: number;
}>;
const sessions = RELEASE.tables.agent_sessions as unknown as ReadonlyArray<{
  id: string;
  project_id: number;
  claude_session_id: string;
  ended_at: string | null;
}>;
const events = RELEASE.tables.turn_events as unknown as ReadonlyArray<{
  turn_id: string;
  type: string;
  data: Record<string, unknown>;
}>;

const ids = (n: number) => `00000000-0000-4000-8000-0000000000a${String(n)}`;

/**
 * Turns of project 2 in every state a release left them in, beside the release's own: failed
 * and stopped while queued (no process, no session), stopped and failed after they ran in the
 * project's session, one with the CLI's figures of before the gateway (0011 to 0016) in its
 * ended session, one running and one queued.
 */
async function addTurnsInEveryState(db: Kysely<unknown>): Promise<void> {
  const member = members.find((m) => m.project_id === 2)?.id;
  const open = sessions.find((s) => s.project_id === 2 && s.ended_at === null);
  const ended = sessions.find((s) => s.project_id === 2 && s.ended_at !== null);
  if (member === undefined || open === undefined || ended === undefined)
    throw new Error("the fixture changed");
  const miss = (phrase: string | null, reason: string) =>
    JSON.stringify({ reason, phrase, position: null, gapMs: 400_000, ttlMs: 300_000 });
  await sql`INSERT INTO turns (id, project_id, number, member_id, prompt, status, error_code,
      error_message, cost_usd, finished_at)
    VALUES (${ids(1)}, 2, 3, ${member}, 'Nikdo.', 'failed', 'member_removed',
      'This message was not answered: its writer left the project (or was removed) before Mara got to it.',
      0, now())`.execute(db);
  await sql`INSERT INTO turns (id, project_id, number, member_id, prompt, status, stopped_by,
      finished_at)
    VALUES (${ids(2)}, 2, 4, ${member}, 'Stop.', 'stopped', ${member}, now())`.execute(db);
  await sql`INSERT INTO turns (id, project_id, number, member_id, prompt, status, stopped_by,
      agent_session_id, result_text, process, process_marker, cost_usd, cumulative_cost_usd,
      input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens,
      cache_write_5m_tokens, cache_write_1h_tokens, cache_miss, started_at, finished_at,
      demo_model, workspace_instruction_files)
    VALUES (${ids(3)}, 2, 5, ${member}, 'Napůl.', 'stopped', ${member}, ${open.id}, 'Napůl hotovo.',
      'warm', 'd8b9f925-3616-46fa-b8da-7d7141ebb44b', 0.002, 0.0301144, 1, 2, 3, 4, 2, 0,
      ${miss(null, "prefix_kept")}::jsonb, now() - interval '1 minute', now(), false, '[]')`.execute(
    db,
  );
  await sql`INSERT INTO turns (id, project_id, number, member_id, prompt, status, error_code,
      error_message, claude_session_id, agent_session_id, process, cold_reason, process_marker,
      cost_usd, cumulative_cost_usd, input_tokens, cache_creation_input_tokens,
      cache_read_input_tokens, output_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
      cache_miss, started_at, finished_at, workspace_instruction_files)
    VALUES (${ids(4)}, 2, 6, ${member}, 'Chyba.', 'failed', 'claude_failed',
      'Claude Code failed; send the message again.', ${open.claude_session_id}, ${open.id},
      'cold', 'idle_timeout', ${ids(4)}, 0.01, 0.0401144, 5, 6, 7, 8, 6, 0,
      ${miss("the cache expired", "ttl_expired")}::jsonb, now() - interval '1 minute', now(),
      '["AGENTS.md"]')`.execute(db);
  await sql`INSERT INTO turns (id, project_id, number, member_id, prompt, status, result_text,
      claude_session_id, agent_session_id, resumed, process, process_marker, cost_usd,
      cumulative_cost_usd, input_tokens, cache_creation_input_tokens, cache_read_input_tokens,
      output_tokens, session_input_tokens, session_cache_read_tokens, cli_fallback, started_at,
      finished_at)
    VALUES (${ids(5)}, 2, 7, ${member}, 'Dříve.', 'succeeded', 'Rozumím.', 'c0ffee00-cli',
      ${ended.id}, true, 'warm', '1881e2db-2e1a-49f1-bf1a-5ff95bb27d3a', 0.003, 0.0311144, 10, 20,
      30, 40, 13233, 9962, 'tool_search_off', now() - interval '2 minutes',
      now() - interval '1 minute')`.execute(db);
  await sql`INSERT INTO turns (id, project_id, number, member_id, prompt, status, process,
      cold_reason, process_marker, started_at, workspace_instruction_files)
    VALUES (${ids(6)}, 2, 8, ${member}, 'Běží.', 'running', 'cold', 'context_changed', ${ids(6)},
      now(), '[]')`.execute(db);
  await sql`INSERT INTO turns (id, project_id, number, member_id, prompt, status)
    VALUES (${ids(7)}, 2, 9, ${member}, 'Čeká.', 'queued')`.execute(db);
}

const count = (value: string | number | null) => (value === null ? null : Number(value));

/** A run as compared: bigints as numbers, timestamps as instants. */
function comparable(run: RunRow) {
  return {
    ...run,
    session_input_tokens: count(run.session_input_tokens),
    session_cache_read_tokens: count(run.session_cache_read_tokens),
    started_at: Date.parse(toRfc3339(String(run.started_at))),
    finished_at: run.finished_at === null ? null : Date.parse(toRfc3339(String(run.finished_at))),
  };
}

/** The run every moved value of the turn makes (and nothing the release did not store). */
function runOf(turn: ReleaseTurn, all: readonly ReleaseTurn[]) {
  // A resumed turn continued where its session's previous successful turn left it.
  const previous = all
    .filter(
      (t) =>
        t.status === "succeeded" &&
        t.agent_session_id === turn.agent_session_id &&
        t.number < turn.number,
    )
    .reduce<ReleaseTurn | null>((a, b) => (a === null || b.number > a.number ? b : a), null);
  const { phrase = null, ...explanation } = turn.cache_miss ?? {};
  return {
    turn_id: turn.id,
    owner: `project:${String(turn.project_id)}`,
    session_id: turn.agent_session_id,
    outcome: turn.status,
    resumed: turn.resumed,
    resumed_claude_session_id: turn.resumed ? (previous?.claude_session_id ?? null) : null,
    claude_session_id: turn.claude_session_id,
    claude_version: null,
    process: turn.process,
    cold_reason: turn.cold_reason,
    process_marker: turn.process_marker,
    failure_code: turn.status === "failed" ? turn.error_code : null,
    failure_message: turn.status === "failed" ? turn.error_message : null,
    exit_code: null,
    usage_source:
      turn.cache_write_5m_tokens !== null ? "gateway" : turn.input_tokens !== null ? "cli" : null,
    requests: null,
    input_tokens: turn.input_tokens,
    cache_creation_input_tokens: turn.cache_creation_input_tokens,
    cache_read_input_tokens: turn.cache_read_input_tokens,
    output_tokens: turn.output_tokens,
    cache_write_5m_tokens: turn.cache_write_5m_tokens,
    cache_write_1h_tokens: turn.cache_write_1h_tokens,
    session_input_tokens: count(turn.session_input_tokens),
    session_cache_read_tokens: count(turn.session_cache_read_tokens),
    cost_usd: turn.cost_usd,
    cumulative_cost_usd: turn.cumulative_cost_usd,
    cache_miss: turn.cache_miss === null ? null : explanation,
    cache_miss_phrase: phrase,
    cli_fallback: turn.cli_fallback,
    usage_limit: null,
    started_at: Date.parse(toRfc3339(turn.started_at ?? turn.created_at)),
    finished_at: turn.finished_at === null ? null : Date.parse(toRfc3339(turn.finished_at)),
  };
}

/** What the release's API showed of the columns that moved (its `turnView`). */
function releaseView(turn: ReleaseTurn): Partial<TurnRecord> {
  const usage = usageFromColumns(turn);
  return {
    resumed: turn.resumed,
    sessionId: turn.claude_session_id,
    costUsd: turn.cost_usd,
    cumulativeCostUsd: turn.cumulative_cost_usd,
    usage:
      usage === null || turn.cache_write_5m_tokens === null || turn.cache_write_1h_tokens === null
        ? usage
        : {
            ...usage,
            cacheCreation5mInputTokens: turn.cache_write_5m_tokens,
            cacheCreation1hInputTokens: turn.cache_write_1h_tokens,
          },
    cacheMiss: turn.cache_miss as TurnRecord["cacheMiss"],
    sessionCacheReuse: sessionCacheReuseOf(turn),
    cliFallback: turn.cli_fallback,
    process: turn.process,
    coldReason: turn.cold_reason,
  };
}

/** What the release said of a turn in its events: at its start and when it succeeded. */
function releaseEvents(turnId: string): Partial<Turn> {
  const of = (type: string) =>
    events.find((e) => e.turn_id === turnId && e.type === type)?.data ?? {};
  const started = of("turn.started");
  const succeeded = of("turn.succeeded");
  return {
    process: started.process as Turn["process"],
    coldReason: (started.coldReason ?? null) as string | null,
    ...Object.fromEntries(
      [
        "sessionId",
        "resumed",
        "resultText",
        "costUsd",
        "cumulativeCostUsd",
        "demoModel",
        "usage",
        "sessionCacheReuse",
        "cliFallback",
        "cacheMiss",
      ].map((key) => [key, succeeded[key]]),
    ),
  };
}

/** What a turn keeps of its own since 0018. */
const TURN_COLUMNS = [
  "created_at",
  "demo_model",
  "error_code",
  "error_message",
  "finished_at",
  "id",
  "member_id",
  "number",
  "project_id",
  "prompt",
  "result_text",
  "session_reset",
  "started_at",
  "status",
  "stopped_by",
  "workspace_instruction_files",
];

describe("migration 0018: the turns' runs move to the turn engine's table", () => {
  it("gives every turn that left the queue its run, as the turn held it, and shows every turn as before", async () => {
    const dir = mkdtempSync(join(tmpdir(), "talkide-engine-0018-"));
    try {
      await databaseOfTheRelease(dir);
      const database = await openDatabase({ databaseUrl: null, dataDir: dir });
      try {
        const old = database.db as unknown as Kysely<unknown>;
        await addTurnsInEveryState(old);
        const { rows: before } = await sql<ReleaseTurn>`SELECT * FROM turns
          ORDER BY project_id, number`.execute(old);
        const statuses = ["failed", "queued", "running", "stopped", "succeeded"] as const;
        expect(statuses.map((status) => before.filter((t) => t.status === status).length)).toEqual([
          2, 1, 1, 2, 6,
        ]);

        const { db } = database;
        expect(await migrateToLatest(db)).toEqual(
          expect.arrayContaining(["engine/0002-runs", "0018_engine_runs"]),
        );

        // Each moved value as the turn held it; a queued turn has no run yet.
        const runs = await runsOf(
          engineDb(db),
          before.map((t) => t.id),
        );
        expect(runs.size).toBe(before.length - 1);
        for (const turn of before) {
          const run = runs.get(turn.id);
          if (turn.status === "queued") expect(run).toBeUndefined();
          else expect(run && comparable(run)).toEqual(runOf(turn, before));
        }
        // The phrase left the gateway's explanation, which kept the rest.
        expect(runs.get(ids(4))).toMatchObject({
          cache_miss: { reason: "ttl_expired", gapMs: 400_000, ttlMs: 300_000, position: null },
          cache_miss_phrase: "the cache expired",
        });
        expect(runs.get(ids(4))?.cache_miss).not.toHaveProperty("phrase");

        // The API shows every turn as the release did.
        const views = new Map(
          [
            ...(await listTurns(db, 1, { limit: 50 })),
            ...(await listTurns(db, 2, { limit: 50 })),
          ].map((view) => [view.id, view]),
        );
        expect(views.size).toBe(before.length);
        for (const turn of before) {
          const view = views.get(turn.id);
          expect(view).toEqual({ ...view, ...releaseView(turn) });
        }
        // And as its events said at the time, for the release's own turns.
        const released = RELEASE.tables.turns as unknown as ReadonlyArray<{ id: string }>;
        for (const { id } of released) {
          const view = views.get(id);
          expect(view).toEqual({ ...view, ...releaseEvents(id) });
        }

        // The project's session continues from its moved runs: its next run's token totals
        // follow the last one's, as its cost follows the session's.
        const last = before.find((t) => t.id === "7ee5055f-ade4-487e-a404-d1dbc2a21a4b");
        if (last?.agent_session_id == null || last.claude_session_id === null)
          throw new Error("the fixture changed");
        const session = last.agent_session_id;
        const next = "00000000-0000-4000-8000-0000000000b1";
        const engine = engineDb(db);
        await startRun(engine, {
          turnId: next,
          owner: "project:1",
          sessionId: session,
          resumedFrom: last.claude_session_id,
        });
        const usage = {
          inputTokens: 3,
          cacheCreationInputTokens: 20,
          cacheReadInputTokens: 13_210,
          outputTokens: 10,
        };
        const recorded = await recordSuccess(
          engine,
          {},
          {
            sessionId: session,
            turnId: next,
            point: { id: last.claude_session_id, at: "msg_next" },
            costUsd: 0.003,
            transcript: null,
            run: {
              figures: {
                costUsd: 0.003,
                usage,
                cacheWrite5mTokens: 0,
                cacheWrite1hTokens: 20,
                cacheMiss: null,
                cacheMissPhrase: null,
              },
              cliFallback: null,
            },
          },
        );
        expect(recorded.run).toEqual({
          sessionInputTokens: Number(last.session_input_tokens) + 13_233,
          sessionCacheReadTokens: Number(last.session_cache_read_tokens) + 13_210,
          cumulativeCostUsd: expect.closeTo((last.cumulative_cost_usd ?? 0) + 0.003, 10) as number,
        });

        // The turn keeps what is its own.
        const { rows: columns } = await sql<{ column_name: string }>`
          SELECT column_name FROM information_schema.columns
           WHERE table_name = 'turns' AND table_schema = current_schema()`.execute(db);
        expect(columns.map((c) => c.column_name).sort()).toEqual(TURN_COLUMNS);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
