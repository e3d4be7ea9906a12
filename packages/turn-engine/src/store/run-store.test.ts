import { wholeTurnTranscript, type TurnTranscript } from "@talkide/claude-cli";
import { pgliteBackend, postgresBackend } from "@talkide/service-kit/testing";
import { fc } from "@fast-check/vitest";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { freshEngineDbs } from "../test-support/engine-db.ts";
import {
  deleteRunsOf,
  finishRun,
  processMarkersOf,
  recordRunProcess,
  runsOf,
  startRun,
  turnIdsOfSession,
  type RunFigures,
} from "./run-store.ts";
import {
  deleteSessionsOf,
  recordSuccess,
  sessionById,
  startSession,
  type EngineDb,
} from "./session-store.ts";

const RT1 = "11111111-1111-4111-8111-111111111111";
const scope = { scope: "agent:a/conversation:c", owner: "agent:a", conversation: "c" };

const figures = (costUsd: number | null, input = 10, read = 90): RunFigures => ({
  costUsd,
  usage: {
    inputTokens: input,
    cacheCreationInputTokens: 5,
    cacheReadInputTokens: read,
    outputTokens: 7,
  },
  source: "gateway",
  requests: 2,
  cacheWrite5mTokens: 5,
  cacheWrite1hTokens: 0,
  cacheMiss: { reason: "first_request", position: null, gapMs: null, ttlMs: null },
  cacheMissPhrase: "the conversation's first request",
});

describe.each([
  { backend: pgliteBackend() },
  { backend: postgresBackend("The turn engine's run store suite") },
])("the engine's runs on $backend.name", ({ backend }) => {
  const fresh = freshEngineDbs(backend, "talkide-engine-runs-");

  /** A success of `turnId` in `sessionId` that cost `costUsd`, ending its run with `run`'s figures. */
  const succeed = (
    db: EngineDb,
    sessionId: string,
    turnId: string,
    costUsd: number,
    run: { readonly figures?: RunFigures; readonly transcript?: TurnTranscript } = {},
  ) =>
    recordSuccess(
      db,
      {},
      {
        sessionId,
        turnId,
        point: { id: RT1, at: turnId },
        costUsd,
        transcript: run.transcript ?? null,
        run: { figures: run.figures ?? figures(costUsd), cliFallback: null, exitCode: 0 },
      },
    );

  /** A run that starts in `sessionId`, afresh, with nothing else known yet. */
  const begin = (db: EngineDb, turnId: string, sessionId: string | null, owner = "agent:a") =>
    startRun(db, { turnId, owner, sessionId, resumedFrom: null });

  const run = async (db: EngineDb, turnId: string) => {
    const row = (await runsOf(db, [turnId])).get(turnId);
    if (row === undefined) throw new Error(`no run ${turnId}`);
    return row;
  };

  it.skipIf(!backend.available)(
    "records a run's start and process; a second attempt of the turn starts again in its row",
    async () => {
      const db = await fresh();
      const first = await startSession(db, scope, "v1");
      await startRun(db, {
        turnId: "t1",
        owner: scope.owner,
        sessionId: first.id,
        resumedFrom: RT1,
        claudeVersion: "2.1.337",
      });
      await recordRunProcess(db, "t1", { kind: "cold", coldReason: "no_process", marker: "t1" });
      const started = await run(db, "t1");
      expect(started).toMatchObject({
        outcome: "running",
        session_id: first.id,
        resumed: true,
        resumed_claude_session_id: RT1,
        claude_version: "2.1.337",
        process: "cold",
        cold_reason: "no_process",
        process_marker: "t1",
        finished_at: null,
      });
      const second = await startSession(db, { ...scope, scope: "other" }, "v1");
      await startRun(db, {
        turnId: "t1",
        owner: scope.owner,
        sessionId: second.id,
        resumedFrom: null,
        process: { kind: "warm", coldReason: null, marker: "t0" },
      });
      const again = await run(db, "t1");
      expect(again).toMatchObject({
        session_id: second.id,
        resumed: false,
        resumed_claude_session_id: null,
        process: "warm",
        process_marker: "t0",
      });
      expect(String(again.started_at)).toBe(String(started.started_at));
      expect(await processMarkersOf(db, ["t1", "t9"])).toEqual(["t1", "t9", "t0"]);
    },
  );

  it.skipIf(!backend.available)(
    "starts a run in one statement with the host's own row, or not at all",
    async () => {
      const db = await fresh();
      await sql`CREATE TABLE host_turns (id text PRIMARY KEY)`.execute(db);
      const hostRow = (id: string) => ({
        steps: () => sql`host_turn AS (INSERT INTO host_turns (id) VALUES (${id}) RETURNING id)`,
      });
      await startRun(
        db,
        { turnId: "t1", owner: "agent:a", sessionId: null, resumedFrom: null },
        hostRow("t1"),
      );
      const { rows } = await sql<{ id: string }>`SELECT id FROM host_turns`.execute(db);
      expect(rows).toEqual([{ id: "t1" }]);
      expect((await run(db, "t1")).outcome).toBe("running");
      // The host's row exists already: the statement fails, and no run is written either.
      await expect(
        startRun(
          db,
          { turnId: "t2", owner: "agent:a", sessionId: null, resumedFrom: null },
          hostRow("t1"),
        ),
      ).rejects.toThrow();
      expect((await runsOf(db, ["t2"])).size).toBe(0);
    },
  );

  it.skipIf(!backend.available)(
    "ends a failed run once, charging its session; a run that never started is recorded",
    async () => {
      const db = await fresh();
      const session = await startSession(db, scope, "v1");
      await begin(db, "t1", session.id);
      const failed = await finishRun(db, {
        turnId: "t1",
        owner: "agent:a",
        outcome: "failed",
        failure: { code: "claude_failed", message: "Claude Code failed." },
        sessionId: session.id,
        claudeSessionId: RT1,
        exitCode: 1,
        figures: figures(0.5),
        usageLimit: { limit: "user_daily" },
      });
      expect(failed).toEqual({ ended: true, cumulativeCostUsd: 0.5 });
      expect(await run(db, "t1")).toMatchObject({
        outcome: "failed",
        failure_code: "claude_failed",
        claude_session_id: RT1,
        exit_code: 1,
        cost_usd: 0.5,
        cumulative_cost_usd: 0.5,
        cache_miss: { reason: "first_request" },
        cache_miss_phrase: "the conversation's first request",
        usage_limit: { limit: "user_daily" },
      });
      // Ended already (recovery marked it, say): nothing changes, nothing is charged twice.
      const again = await finishRun(db, {
        turnId: "t1",
        owner: "agent:a",
        outcome: "interrupted",
        failure: { code: "owner_restarted", message: "x" },
        sessionId: session.id,
        figures: figures(0.5),
      });
      expect(again).toEqual({ ended: false, cumulativeCostUsd: null });
      expect((await run(db, "t1")).outcome).toBe("failed");
      expect((await sessionById(db, session.id))?.cumulative_cost_usd).toBe(0.5);

      const never = await finishRun(db, {
        turnId: "t2",
        owner: "agent:a",
        outcome: "failed",
        failure: { code: "context_failed", message: "No context." },
        figures: null,
      });
      expect(never).toEqual({ ended: true, cumulativeCostUsd: null });
      expect(await run(db, "t2")).toMatchObject({
        outcome: "failed",
        session_id: null,
        process: null,
        cost_usd: null,
      });
    },
  );

  it.skipIf(!backend.available)(
    "ends a successful run in the success statement, with the session's totals so far",
    async () => {
      const db = await fresh();
      const session = await startSession(db, scope, "v1");
      const succeedIn = async (turnId: string, costUsd: number, input: number, read: number) => {
        await begin(db, turnId, session.id);
        return succeed(db, session.id, turnId, costUsd, {
          figures: figures(costUsd, input, read),
          transcript: wholeTurnTranscript({
            sessionId: RT1,
            projectDir: "-ws",
            content: `${turnId}\n`,
          }),
        });
      };
      const one = await succeedIn("t1", 0.25, 10, 0);
      expect(one.run).toEqual({
        sessionInputTokens: 15,
        sessionCacheReadTokens: 0,
        cumulativeCostUsd: 0.25,
      });
      const two = await succeedIn("t2", 0.5, 3, 20);
      expect(two.run).toEqual({
        sessionInputTokens: 15 + 28,
        sessionCacheReadTokens: 20,
        cumulativeCostUsd: 0.75,
      });
      expect(await run(db, "t2")).toMatchObject({
        outcome: "succeeded",
        claude_session_id: RT1,
        exit_code: 0,
        cost_usd: 0.5,
        input_tokens: 3,
        cache_read_input_tokens: 20,
        usage_source: "gateway",
        requests: 2,
      });
      // A success without a running run of that turn records the session and nothing else.
      const without = await succeed(db, session.id, "t3", 0.25);
      expect(without).toMatchObject({ total: 1, run: null });
    },
  );

  it.skipIf(!backend.available)(
    "deletes runs with their owner, and with their session",
    async () => {
      const db = await fresh();
      const session = await startSession(db, scope, "v1");
      await begin(db, "t1", session.id);
      await finishRun(db, {
        turnId: "t2",
        owner: "agent:a",
        outcome: "stopped",
        failure: null,
        figures: null,
      });
      await finishRun(db, {
        turnId: "t3",
        owner: "agent:b",
        outcome: "stopped",
        failure: null,
        figures: null,
      });
      await deleteSessionsOf(db, "agent:a");
      expect([...(await runsOf(db, ["t1", "t2", "t3"])).keys()].sort()).toEqual(["t2", "t3"]);
      await deleteRunsOf(db, "agent:a");
      expect([...(await runsOf(db, ["t1", "t2", "t3"])).keys()]).toEqual(["t3"]);
    },
  );

  it.skipIf(!backend.available)(
    "lists the turns that ran in a session, oldest first, whatever they ended as",
    async () => {
      const db = await fresh();
      const session = await startSession(db, scope, "v1");
      const other = await startSession(db, { ...scope, scope: "other" }, "v1");
      const start = (turnId: string, sessionId: string) =>
        startRun(db, { turnId, owner: "agent:a", sessionId, resumedFrom: null });
      await start("t2", session.id);
      await start("t1", other.id);
      await start("t3", session.id);
      await finishRun(db, {
        turnId: "t2",
        owner: "agent:a",
        outcome: "failed",
        failure: { code: "claude_failed", message: "failed" },
        sessionId: session.id,
        figures: null,
      });
      // A run that failed before it had a session is in none.
      await finishRun(db, {
        turnId: "t4",
        owner: "agent:a",
        outcome: "stopped",
        failure: null,
        figures: null,
      });
      expect(await turnIdsOfSession(db, session.id)).toEqual(["t2", "t3"]);
      expect(await turnIdsOfSession(db, other.id)).toEqual(["t1"]);
      expect(await turnIdsOfSession(db, "no-such-session")).toEqual([]);
    },
  );

  it.skipIf(!backend.available)(
    "a session's cost is the sum of its runs' costs, each run holding the total after it",
    async () => {
      const db = await fresh();
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              succeeded: fc.boolean(),
              cents: fc.integer({ min: 0, max: 500 }),
            }),
            { minLength: 1, maxLength: 6 },
          ),
          async (runs) => {
            n += 1;
            const session = await startSession(db, { scope: `s${n}`, owner: `o${n}` }, "v1");
            let total = 0;
            for (const [i, step] of runs.entries()) {
              const turnId = `p${n}-${i}`;
              const costUsd = step.cents / 100;
              await begin(db, turnId, session.id, `o${n}`);
              if (step.succeeded) {
                await succeed(db, session.id, turnId, costUsd);
              } else {
                await finishRun(db, {
                  turnId,
                  owner: `o${n}`,
                  outcome: "failed",
                  failure: { code: "claude_failed", message: "failed" },
                  sessionId: session.id,
                  figures: figures(costUsd),
                });
              }
              total = Math.round((total + costUsd) * 1e10) / 1e10;
              expect((await run(db, turnId)).cumulative_cost_usd).toBeCloseTo(total, 10);
            }
            expect((await sessionById(db, session.id))?.cumulative_cost_usd).toBeCloseTo(total, 10);
          },
        ),
        { numRuns: 15 },
      );
    },
  );
});
