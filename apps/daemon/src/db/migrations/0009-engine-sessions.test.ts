import { STANDING_PROMPT_VERSION } from "@talkide/prompts";
import { pgliteBackend, postgresBackend } from "@talkide/service-kit/testing";
import {
  chooseSession,
  engineDb,
  loadTranscript,
  openSession,
  pinnedTo,
  pointOfSession,
  sessionById,
} from "@talkide/turn-engine";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversationScope } from "../../sessions/agent-sessions.ts";
import { makeDelivery, removeDir, type TestDaemon } from "../../test-support/harness.ts";
import { startOnEarlierSchema } from "../../test-support/earlier-schema.ts";

// A database as today's release leaves it (daemon/0008 and the gateway's), with the rows it
// writes: migrated by a daemon of this release, its sessions and transcripts are the engine's.
const LIVE = "5b0f4c59-6d2f-4f3e-9a4e-0d3c6c1f2a01";
const ENDED = "5b0f4c59-6d2f-4f3e-9a4e-0d3c6c1f2a02";
const RUNTIME = "6c1e2d3f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";
const OLD_RUNTIME = "7d2f3e4a-8b9c-4dae-9f10-2b3c4d5e6f70";
const DELIVERY_1 = "8e3a4f5b-9cad-4ebf-a021-3c4d5e6f7081";
const DELIVERY_2 = "8e3a4f5b-9cad-4ebf-a021-3c4d5e6f7082";
const TURN_1 = "9f4b5a6c-adbe-4fc0-b132-4d5e6f708192";
const TURN_2 = "9f4b5a6c-adbe-4fc0-b132-4d5e6f708193";
const HEADER = `{"type":"summary","text":"ü"}\n`;
const PARTS = [`{"type":"user","n":1}\n`, `{"type":"assistant","n":2}\n`];

describe.each([
  { backend: pgliteBackend() },
  { backend: postgresBackend("The daemon's migration 0009 suite") },
])(
  "migration 0009 on $backend.name: sessions and transcripts move to the engine's tables",
  ({ backend }) => {
    let dir: string;
    let td: TestDaemon;

    beforeAll(async () => {
      if (!backend.available) return;
      await backend.setup();
      // A daemon of this release starts on it: the engine's tables, then daemon/0009 on.
      ({ td, dir } = await startOnEarlierSchema({
        first: "0009",
        databaseUrl: await backend.newDatabase(),
        write: async (db, { workspace }) => {
          await sql`INSERT INTO agents (id, runtime, workspace_dir, runtime_meta, updated_at)
      VALUES ('ava', 'claude-code', ${workspace}, '{}', '2026-05-01T10:00:00Z')`.execute(db);
          await sql`INSERT INTO sessions (id, agent_id, conversation_id, runtime, runtime_session_id,
        resume_at_message_id, standing_prompt_version, turn_count, cumulative_cost_usd,
        invalidated_at, invalidated_reason, created_at, updated_at)
      VALUES
        (${ENDED}, 'ava', 'c-1', 'claude-code', ${OLD_RUNTIME}, NULL, 'v-old', 1, 0.05,
         '2026-05-01T11:00:00Z', 'standing_prompt_changed', '2026-05-01T10:00:00Z',
         '2026-05-01T11:00:00Z'),
        (${LIVE}, 'ava', 'c-1', 'claude-code', ${RUNTIME}, 'msg-2', ${STANDING_PROMPT_VERSION},
         2, 0.125, NULL, NULL, '2026-05-01T11:00:00Z', '2026-05-01T12:00:00Z')`.execute(db);
          await sql`INSERT INTO deliveries (id, agent_id, message_id, conversation_id, reason, payload,
        state, attempts, started_at, finished_at)
      VALUES
        (${DELIVERY_1}, 'ava', 'm-1', 'c-1', 'mention', '{}', 'completed', 1, now(), now()),
        (${DELIVERY_2}, 'ava', 'm-2', 'c-1', 'mention', '{}', 'completed', 1, now(), now())`.execute(
            db,
          );
          await sql`INSERT INTO turns (id, delivery_id, session_id, agent_id, conversation_id, attempt,
        state, resumed, runtime_session_id, cost_usd, cumulative_cost_usd, finished_at)
      VALUES
        (${TURN_1}, ${DELIVERY_1}, ${ENDED}, 'ava', 'c-1', 1, 'completed', false,
         ${OLD_RUNTIME}, 0.05, 0.05, now()),
        (${TURN_2}, ${DELIVERY_2}, ${LIVE}, 'ava', 'c-1', 1, 'completed', false, ${RUNTIME},
         0.125, 0.125, now())`.execute(db);
          await sql`INSERT INTO session_transcripts (session_id, runtime_session_id, project_dir,
        content, turn_id)
      VALUES (${LIVE}, ${RUNTIME}, '-ws', ${HEADER}, ${TURN_2})`.execute(db);
          await sql`INSERT INTO session_transcript_parts (session_id, seq, content, turn_id)
      VALUES (${LIVE}, 1, ${PARTS[0]}, ${TURN_2}), (${LIVE}, 2, ${PARTS[1]}, ${TURN_2})`.execute(
            db,
          );
        },
      }));
    });

    afterAll(async () => {
      if (!backend.available) return;
      await td.stop();
      await removeDir(dir);
      await backend.teardown();
    });

    it.skipIf(!backend.available)(
      "keeps the conversation's open session where it was, with its pin and its transcript's bytes",
      async () => {
        const sessions = engineDb(td.daemon.db);
        const open = await openSession(sessions, conversationScope("ava", "c-1").scope);
        expect(open?.id).toBe(LIVE);
        expect(open && pointOfSession(open)).toEqual({ id: RUNTIME, at: "msg-2" });
        expect(open?.pin).toBe(STANDING_PROMPT_VERSION);
        expect(await loadTranscript(sessions, LIVE)).toEqual({
          sessionId: RUNTIME,
          projectDir: "-ws",
          content: HEADER + PARTS.join(""),
        });
        expect(await loadTranscript(sessions, ENDED)).toBeNull();
        // Resumable under this daemon's standing prompt.
        expect(open && chooseSession(open, pinnedTo(STANDING_PROMPT_VERSION)).kind).toBe(
          "continue",
        );
      },
    );

    it.skipIf(!backend.available)("shows the sessions as the release did", async () => {
      expect(await td.api.sessions("&agentId=ava")).toEqual([
        {
          id: LIVE,
          agentId: "ava",
          conversationId: "c-1",
          runtime: "claude-code",
          runtimeSessionId: RUNTIME,
          standingPromptVersion: STANDING_PROMPT_VERSION,
          turnCount: 2,
          cumulativeCostUsd: 0.125,
          live: true,
          invalidatedAt: null,
          invalidatedReason: null,
          createdAt: "2026-05-01T11:00:00.000Z",
          updatedAt: "2026-05-01T12:00:00.000Z",
        },
        {
          id: ENDED,
          agentId: "ava",
          conversationId: "c-1",
          runtime: "claude-code",
          runtimeSessionId: OLD_RUNTIME,
          standingPromptVersion: "v-old",
          turnCount: 1,
          cumulativeCostUsd: 0.05,
          live: false,
          invalidatedAt: "2026-05-01T11:00:00.000Z",
          invalidatedReason: "standing_prompt_changed",
          createdAt: "2026-05-01T10:00:00.000Z",
          updatedAt: "2026-05-01T11:00:00.000Z",
        },
      ]);
    });

    it.skipIf(!backend.available)("keeps every turn referencing its session", async () => {
      const turns = await td.api.turns("&agentId=ava");
      expect(new Map(turns.map((turn) => [turn.id, turn.sessionId]))).toEqual(
        new Map([
          [TURN_1, ENDED],
          [TURN_2, LIVE],
        ]),
      );
      const sessions = engineDb(td.daemon.db);
      for (const id of [ENDED, LIVE]) expect((await sessionById(sessions, id))?.id).toBe(id);
    });

    it.skipIf(!backend.available)(
      "resumes the migrated session with the conversation's next delivery",
      async () => {
        const ack = await td.api.deliver("ava", makeDelivery({ conversation_id: "c-1" }));
        expect(ack.status).toBe(202);
        const [done] = await td.api.settled([ack.body.delivery.id]);
        expect(done?.state).toBe("completed");
        const [turn] = await td.api.turns(`&deliveryId=${ack.body.delivery.id}`);
        expect(turn).toMatchObject({
          sessionId: LIVE,
          resumed: true,
          resumedRuntimeSessionId: RUNTIME,
          runtimeSessionId: RUNTIME,
        });
        const [live] = await td.api.sessions("&agentId=ava&live=true");
        expect(live).toMatchObject({ id: LIVE, turnCount: 3 });
      },
    );
  },
);
