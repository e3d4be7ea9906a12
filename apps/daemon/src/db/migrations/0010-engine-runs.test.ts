import { STANDING_PROMPT_VERSION } from "@talkide/prompts";
import { pgliteBackend, postgresBackend } from "@talkide/service-kit/testing";
import { engineDb, runsOf, startSession } from "@talkide/turn-engine";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversationScope } from "../../sessions/agent-sessions.ts";
import { abandonDelivery } from "../../store/deliveries.ts";
import { removeDir, type TestDaemon } from "../../test-support/harness.ts";
import { startOnEarlierSchema } from "../../test-support/earlier-schema.ts";
import {
  expectRunsHoldTheirTurns,
  turnsAsListed,
  viewAt0009,
  type TurnViewAt0009,
} from "../../test-support/migrated-turns.ts";

// A database as daemon/0009 leaves it, with turns of every state the daemon writes (and one of
// 0.2.x, before processes and figures were recorded): migrated by a daemon of this release,
// each turn's run is the engine's, and the turns list as they did.
const LIVE = "5b0f4c59-6d2f-4f3e-9a4e-0d3c6c1f2a01";
const OTHER = "5b0f4c59-6d2f-4f3e-9a4e-0d3c6c1f2a02";
const RUNTIME = "6c1e2d3f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";
const D_OLD = "8e3a4f5b-9cad-4ebf-a021-3c4d5e6f7081";
const D_DONE = "8e3a4f5b-9cad-4ebf-a021-3c4d5e6f7082";
const D_FAILED = "8e3a4f5b-9cad-4ebf-a021-3c4d5e6f7083";
const D_RUNNING = "8e3a4f5b-9cad-4ebf-a021-3c4d5e6f7084";
const T_OLD = "9f4b5a6c-adbe-4fc0-b132-4d5e6f708191";
const T_DONE = "9f4b5a6c-adbe-4fc0-b132-4d5e6f708192";
const T_INTERRUPTED = "9f4b5a6c-adbe-4fc0-b132-4d5e6f708193";
const T_LIMIT = "9f4b5a6c-adbe-4fc0-b132-4d5e6f708194";
const T_RUNNING = "9f4b5a6c-adbe-4fc0-b132-4d5e6f708195";
const LIMIT = {
  scope: "user",
  period: "day",
  measure: "usd",
  used: 5.01,
  cap: 5,
  setting: "TALKIDE_LIMIT_USER_DAILY_USD",
  message: "The daily limit of 5 USD per user is reached.",
};

describe.each([
  { backend: pgliteBackend() },
  { backend: postgresBackend("The daemon's migration 0010 suite") },
])("migration 0010 on $backend.name: the turns' runs move to the engine's table", ({ backend }) => {
  let dir: string;
  let td: TestDaemon;
  /** The turns' rows at 0009, newest first, and the daemon's JSON of them then. */
  let before: readonly Record<string, unknown>[] = [];
  let listed: readonly TurnViewAt0009[] = [];

  beforeAll(async () => {
    if (!backend.available) return;
    await backend.setup();
    ({ td, dir } = await startOnEarlierSchema({
      first: "0010",
      databaseUrl: await backend.newDatabase(),
      write: async (db, { workspace }) => {
        await sql`INSERT INTO agents (id, runtime, workspace_dir, runtime_meta, updated_at)
        VALUES ('ava', 'claude-code', ${workspace}, '{}', '2026-05-01T10:00:00Z')`.execute(db);
        const sessions = engineDb(db);
        await startSession(
          sessions,
          conversationScope("ava", "c-1"),
          STANDING_PROMPT_VERSION,
          LIVE,
        );
        await startSession(
          sessions,
          conversationScope("ava", "c-2"),
          STANDING_PROMPT_VERSION,
          OTHER,
        );
        await sql`INSERT INTO deliveries (id, agent_id, message_id, conversation_id, reason, payload,
          state, failure_reason, failure_message, attempts, started_at, finished_at)
        VALUES
          (${D_OLD}, 'ava', 'm-1', 'c-1', 'mention', '{}', 'completed', NULL, NULL, 1, now(), now()),
          (${D_DONE}, 'ava', 'm-2', 'c-1', 'mention', '{}', 'completed', NULL, NULL, 1, now(), now()),
          (${D_FAILED}, 'ava', 'm-3', 'c-1', 'dm', '{}', 'failed', 'usage_limit_reached',
           ${LIMIT.message}, 2, now(), now()),
          (${D_RUNNING}, 'ava', 'm-4', 'c-2', 'dm', '{}', 'running', NULL, NULL, 1, now(), NULL)`.execute(
          db,
        );
        // A turn of 0.2.x: no process, no figures.
        await sql`INSERT INTO turns (id, delivery_id, session_id, agent_id, conversation_id, attempt,
          state, resumed, runtime_session_id, cost_usd, cumulative_cost_usd, exit_code, events,
          started_at, finished_at)
        VALUES (${T_OLD}, ${D_OLD}, ${LIVE}, 'ava', 'c-1', 1, 'completed', false, ${RUNTIME}, 0.2,
          0.2, 0, '[{"type":"result"}]', '2026-05-01T10:00:00Z', '2026-05-01T10:00:05Z')`.execute(
          db,
        );
        // A success with every figure the gateway measures, and the CLI's fallback.
        await sql`INSERT INTO turns (id, delivery_id, session_id, agent_id, conversation_id, attempt,
          state, resumed, resumed_runtime_session_id, runtime_session_id, exit_code, cost_usd,
          cumulative_cost_usd, claude_version, process, cold_reason, process_marker, input_tokens,
          cache_creation_input_tokens, cache_read_input_tokens, output_tokens,
          session_input_tokens, session_cache_read_tokens, cli_fallback, usage_source, requests,
          cache_write_5m_tokens, cache_write_1h_tokens, cache_miss, cache_miss_phrase, events,
          started_at, finished_at)
        VALUES (${T_DONE}, ${D_DONE}, ${LIVE}, 'ava', 'c-1', 1, 'completed', true, ${RUNTIME},
          ${RUNTIME}, 0, 0.0055198, 0.2055198, '2.1.337', 'warm', NULL, ${T_OLD}, 3, 187, 19119,
          10, 38425, 19119, 'tool_search_off', 'gateway', 2, 87, 100,
          '{"reason":"prefix_kept","position":null,"gapMs":150,"ttlMs":3600000}', NULL, '[]',
          '2026-05-01T11:00:00Z', '2026-05-01T11:00:02Z')`.execute(db);
        // The daemon stopped renewing its lease during the first attempt …
        await sql`INSERT INTO turns (id, delivery_id, session_id, agent_id, conversation_id, attempt,
          state, resumed, resumed_runtime_session_id, claude_version, process, cold_reason,
          process_marker, failure_reason, failure_message, events, started_at, finished_at)
        VALUES (${T_INTERRUPTED}, ${D_FAILED}, ${LIVE}, 'ava', 'c-1', 1, 'interrupted', true,
          ${RUNTIME}, '2.1.337', 'cold', 'new_session', ${T_INTERRUPTED},
          'instance_lease_expired', 'the daemon running this turn stopped renewing its lease',
          '[]', '2026-05-01T12:00:00Z', '2026-05-01T12:01:00Z')`.execute(db);
        // … and the second was refused over a limit, what it used charged all the same.
        await sql`INSERT INTO turns (id, delivery_id, session_id, agent_id, conversation_id, attempt,
          state, resumed, resumed_runtime_session_id, runtime_session_id, failure_reason,
          failure_message, exit_code, cost_usd, cumulative_cost_usd, claude_version, process,
          cold_reason, process_marker, input_tokens, cache_creation_input_tokens,
          cache_read_input_tokens, output_tokens, usage_source, requests, cache_write_5m_tokens,
          cache_write_1h_tokens, cache_miss, cache_miss_phrase, usage_limit, events, started_at,
          finished_at)
        VALUES (${T_LIMIT}, ${D_FAILED}, ${LIVE}, 'ava', 'c-1', 2, 'failed', true, ${RUNTIME},
          ${RUNTIME}, 'usage_limit_reached', ${LIMIT.message}, 1, 0.01, 0.2155198, '2.1.337',
          'cold', 'previous_turn_failed', ${T_LIMIT}, 1, 0, 19306, 2, 'gateway', 1, 0, 0,
          '{"reason":"prefix_kept","position":null,"gapMs":60000,"ttlMs":3600000}', NULL,
          ${JSON.stringify(LIMIT)}, '[]', '2026-05-01T12:02:00Z', '2026-05-01T12:02:01Z')`.execute(
          db,
        );
        // Running when its daemon was stopped for the upgrade.
        await sql`INSERT INTO turns (id, delivery_id, session_id, agent_id, conversation_id, attempt,
          state, resumed, claude_version, process, cold_reason, process_marker, events,
          started_at)
        VALUES (${T_RUNNING}, ${D_RUNNING}, ${OTHER}, 'ava', 'c-2', 1, 'running', false,
          '2.1.337', 'warm', NULL, ${T_DONE}, '[]', '2026-05-01T13:00:00Z')`.execute(db);
        before = await turnsAsListed(db);
        // What GET /v1/turns answered at 0009: its rows, through the same view.
        listed = before.map(viewAt0009);
      },
    }));
  });

  afterAll(async () => {
    if (!backend.available) return;
    await td.stop();
    await removeDir(dir);
    await backend.teardown();
  });

  it.skipIf(!backend.available)("gives every turn a run holding what its row held", async () => {
    expect(before.map((row) => row["id"])).toEqual([
      T_RUNNING,
      T_LIMIT,
      T_INTERRUPTED,
      T_DONE,
      T_OLD,
    ]);
    await expectRunsHoldTheirTurns(td.daemon.db, before);
  });

  it.skipIf(!backend.available)(
    "lists every turn as the daemon did before: all of them, by session and by delivery",
    async () => {
      const json = (views: readonly TurnViewAt0009[]) => views;
      expect(await td.api.turns("&agentId=ava")).toEqual(json(listed));
      expect(await td.api.turns(`&sessionId=${LIVE}`)).toEqual(
        json(listed.filter((turn) => turn.sessionId === LIVE)),
      );
      expect((await td.api.delivery(D_FAILED)).turns).toEqual(
        json(listed.filter((turn) => turn.deliveryId === D_FAILED)),
      );
      expect(await td.api.turns(`&sessionId=${T_OLD}`)).toEqual([]);
      // With its events, as before.
      const [old] = await td.api.turns(`&deliveryId=${D_OLD}&events=true`);
      expect(old?.events).toEqual([{ type: "result" }]);
    },
  );

  it.skipIf(!backend.available)("leaves the daemon's turns only what is their own", async () => {
    const { rows } = await sql<{ column_name: string }>`
      SELECT column_name FROM information_schema.columns
       WHERE table_name = 'turns' AND table_schema = current_schema()
       ORDER BY ordinal_position`.execute(td.daemon.db);
    expect(rows.map((row) => row.column_name)).toEqual([
      "id",
      "delivery_id",
      "agent_id",
      "conversation_id",
      "attempt",
      "state",
      "events",
      "started_at",
      "finished_at",
    ]);
    const indexes = await sql<{ indexname: string }>`
      SELECT indexname FROM pg_indexes WHERE tablename = 'turns' ORDER BY indexname`.execute(
      td.daemon.db,
    );
    expect(indexes.rows.map((row) => row.indexname)).toEqual([
      "turns_by_delivery",
      "turns_pkey",
      "turns_running",
    ]);
  });

  it.skipIf(!backend.available)(
    "ends a migrated running turn's run with it when its delivery is recovered",
    async () => {
      const abandoned = await abandonDelivery(
        td.daemon.db,
        D_RUNNING,
        "owner_restarted",
        "the daemon running this turn was restarted",
        3,
      );
      expect(abandoned).toMatchObject({ turnIds: [T_RUNNING], outcome: "requeued" });
      // Its own id and the id of the turn that started its kept process.
      expect([...(abandoned?.processMarkers ?? [])].sort()).toEqual([T_DONE, T_RUNNING].sort());
      const [turn] = await td.api.turns(`&deliveryId=${D_RUNNING}`);
      expect(turn).toMatchObject({
        state: "interrupted",
        sessionId: OTHER,
        failureReason: "owner_restarted",
        failureMessage: "the daemon running this turn was restarted",
        process: "warm",
      });
      expect(turn?.finishedAt).not.toBeNull();
      const run = (await runsOf(engineDb(td.daemon.db), [T_RUNNING])).get(T_RUNNING);
      expect(run).toMatchObject({ outcome: "interrupted", failure_code: "owner_restarted" });
      expect(run?.finished_at).not.toBeNull();
    },
  );
});
