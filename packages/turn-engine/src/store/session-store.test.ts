import { wholeTurnTranscript } from "@talkide/claude-cli";
import { pgliteBackend, postgresBackend } from "@talkide/service-kit/testing";
import { fc } from "@fast-check/vitest";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { freshEngineDbs } from "../test-support/engine-db.ts";
import {
  deleteSessionsOf,
  endSession,
  endSessionsOf,
  lastEndReason,
  listSessions,
  loadTranscript,
  openSession,
  pointOfSession,
  recordSuccess,
  repinSession,
  sessionPoints,
  startSession,
} from "./session-store.ts";
import { sessionTotalAfter } from "./totals.ts";

const RT1 = "11111111-1111-4111-8111-111111111111";
const RT2 = "22222222-2222-4222-8222-222222222222";
const transcript = (content: string, sessionId = RT1, projectDir = "-ws") =>
  wholeTurnTranscript({ sessionId, projectDir, content });

describe.each([
  { backend: pgliteBackend() },
  { backend: postgresBackend("The turn engine's store suite") },
])("the engine's store on $backend.name", ({ backend }) => {
  const fresh = freshEngineDbs(backend, "talkide-engine-store-");
  const scope = { scope: "agent:a/conversation:c", owner: "agent:a", conversation: "c" };

  it.skipIf(!backend.available)(
    "keeps one open session per scope, begun by its first success and resumed where it ended",
    async () => {
      const db = await fresh();
      expect(await openSession(db, scope.scope)).toBeNull();
      const started = await startSession(db, scope, "v1");
      expect(pointOfSession(started)).toBeNull();
      await expect(startSession(db, scope, "v1")).rejects.toThrow();
      const ledger = {};
      const { total } = await recordSuccess(db, ledger, {
        sessionId: started.id,
        turnId: "turn-1",
        point: { id: RT1, at: "m-1" },
        costUsd: 0.25,
        transcript: transcript("a\n"),
      });
      expect(total).toBe(0.25);
      const open = await openSession(db, scope.scope);
      expect(open && pointOfSession(open)).toEqual({ id: RT1, at: "m-1" });
      expect(open?.turn_count).toBe(1);
      expect(await sessionPoints(db, [scope.scope, "project:9"])).toEqual(
        new Map([[scope.scope, { id: RT1, at: "m-1" }]]),
      );
      expect(await loadTranscript(db, started.id)).toEqual({
        sessionId: RT1,
        projectDir: "-ws",
        content: "a\n",
      });
    },
  );

  it.skipIf(!backend.available)(
    "appends what a turn added as a part, and stores the whole when another process wrote last",
    async () => {
      const db = await fresh();
      const session = await startSession(db, scope, "v1");
      const here = {};
      const there = {};
      const success = (turnId: string, content: string, ledger: object) =>
        recordSuccess(db, ledger, {
          sessionId: session.id,
          turnId,
          point: { id: RT1, at: turnId },
          costUsd: 0.1,
          transcript: transcript(content),
        });
      await success("turn-1", "a\n", here);
      await success("turn-2", "a\nb\n", here);
      const parts = () =>
        db
          .selectFrom("engine_transcript_parts")
          .select(["seq", "content", "turn_id"])
          .where("session_id", "=", session.id)
          .orderBy("seq")
          .execute();
      expect(await parts()).toEqual([
        { seq: 1, content: "a\n", turn_id: "turn-1" },
        { seq: 2, content: "b\n", turn_id: "turn-2" },
      ]);
      // Another process ran the next turn: its ledger knows nothing; it writes the whole.
      await success("turn-3", "a\nb\nc\n", there);
      // This one's ledger still names turn-2: its append changes nothing, the whole is written.
      await success("turn-4", "a\nb\nc\nd\n", here);
      expect(await parts()).toEqual([{ seq: 4, content: "a\nb\nc\nd\n", turn_id: "turn-4" }]);
      const open = await openSession(db, scope.scope);
      expect(open?.turn_count).toBe(4);
      expect(open?.cumulative_cost_usd).toBe(0.4);
      expect((await loadTranscript(db, session.id))?.content).toBe("a\nb\nc\nd\n");
    },
  );

  it.skipIf(!backend.available)(
    "writes the host's own steps in the same statement, only when the engine's part is written",
    async () => {
      const db = await fresh();
      await sql`CREATE TABLE host_turns (id text PRIMARY KEY, state text, total double precision)`.execute(
        db,
      );
      const session = await startSession(db, scope, null);
      const ledger = {};
      const turn = async (id: string, content: string) => {
        await sql`INSERT INTO host_turns (id, state) VALUES (${id}, 'running')`.execute(db);
        const recorded = await recordSuccess(
          db,
          ledger,
          {
            sessionId: session.id,
            turnId: id,
            point: { id: RT1, at: id },
            costUsd: 1,
            transcript: transcript(content),
          },
          {
            steps: (when) => sql`finished AS (
              UPDATE host_turns SET state = 'done', total = ${sessionTotalAfter(session.id, 1)}
               WHERE id = ${id} ${when} RETURNING id, total)`,
            result: sql`(SELECT to_jsonb(f) FROM finished f)`,
          },
        );
        return recorded.host;
      };
      // What the host's step returned comes back with the engine's result.
      expect(await turn("t1", "a\n")).toEqual({ id: "t1", total: 1 });
      expect(await turn("t2", "a\nb\n")).toEqual({ id: "t2", total: 2 });
      const { rows } = await sql<{
        id: string;
        state: string;
        total: number;
      }>`SELECT id, state, total FROM host_turns ORDER BY id`.execute(db);
      expect(rows).toEqual([
        { id: "t1", state: "done", total: 1 },
        { id: "t2", state: "done", total: 2 },
      ]);
    },
  );

  it.skipIf(!backend.available)(
    "ends a session once, names why the last one ended, and repins only one not begun",
    async () => {
      const db = await fresh();
      const first = await startSession(db, scope, "v1");
      await repinSession(db, first.id, "v2");
      expect((await openSession(db, scope.scope))?.pin).toBe("v2");
      await recordSuccess(
        db,
        {},
        {
          sessionId: first.id,
          turnId: "t1",
          point: { id: RT1, at: null },
          costUsd: null,
          transcript: null,
        },
      );
      await repinSession(db, first.id, "v3");
      expect((await openSession(db, scope.scope))?.pin).toBe("v2");
      expect(await endSession(db, first.id, "standing_prompt_changed")).toBe(true);
      expect(await endSession(db, first.id, "unknown_session")).toBe(false);
      expect(await lastEndReason(db, scope.scope)).toBe("standing_prompt_changed");
      const second = await startSession(db, scope, "v3");
      const other = await startSession(
        db,
        { scope: "agent:a/conversation:d", owner: "agent:a", conversation: "d" },
        "v3",
      );
      expect((await listSessions(db, { owner: "agent:a", limit: 10 })).map((s) => s.id)).toEqual([
        other.id,
        second.id,
        first.id,
      ]);
      expect(
        (await listSessions(db, { conversation: "c", openOnly: true, limit: 10 })).map((s) => s.id),
      ).toEqual([second.id]);
      const ended = await endSessionsOf(db, "agent:a", "reset");
      expect(ended.map((s) => s.id).sort()).toEqual([second.id, other.id].sort());
      expect(ended.every((s) => s.end_reason === "reset" && s.ended_at !== null)).toBe(true);
      await deleteSessionsOf(db, "agent:a");
      expect(await listSessions(db, { owner: "agent:a", limit: 10 })).toEqual([]);
    },
  );

  it.skipIf(!backend.available)(
    "loads back exactly what the turns left, whatever they wrote and however it was split",
    async () => {
      const db = await fresh();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.string({ unit: "grapheme", maxLength: 40 }), { minLength: 1, maxLength: 6 }),
          async (lines) => {
            run += 1;
            const session = await startSession(db, { scope: `s${run}`, owner: "o" }, null);
            const ledger = {};
            let content = "";
            for (const [i, line] of lines.entries()) {
              const id = i % 3 === 2 ? RT2 : RT1;
              content += `${JSON.stringify(line)}\n`;
              await recordSuccess(db, ledger, {
                sessionId: session.id,
                turnId: `t${i}`,
                point: { id, at: null },
                costUsd: null,
                transcript: transcript(content, id),
              });
            }
            expect((await loadTranscript(db, session.id))?.content).toBe(content);
          },
        ),
        { numRuns: 25 },
      );
    },
  );
});
