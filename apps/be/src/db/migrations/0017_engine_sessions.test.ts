import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  engineDb,
  isPinnedTo,
  loadTranscript,
  pointOfSession,
  runsOf,
  sessionById,
} from "@talkide/turn-engine";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openSession, releasePin } from "../../agent/session-pinning.ts";
import { issueApiToken } from "../../auth/api-tokens.ts";
import { sendMessage, startHarness, terminalEvent } from "../../test-support/harness.ts";
import { databaseOfTheRelease, RELEASE } from "../../test-support/release-rows.ts";
import { openDatabase } from "../connect.ts";
import { migrateToLatest } from "../migrate.ts";

interface SessionFixture {
  id: string;
  project_id: number;
  claude_session_id: string;
  resume_at_message_id: string;
  agent_sha256: string;
  plugin_sha256: string;
  ended_at: string | null;
}
const sessions = RELEASE.tables.agent_sessions as unknown as readonly SessionFixture[];
const turns = RELEASE.tables.turns as unknown as ReadonlyArray<{
  id: string;
  agent_session_id: string | null;
  cost_usd: number | null;
}>;
const parts = RELEASE.tables.agent_session_transcript_parts as unknown as ReadonlyArray<{
  agent_session_id: string;
  seq: number;
  content: string;
}>;
const transcripts = RELEASE.tables.agent_session_transcripts as unknown as ReadonlyArray<{
  agent_session_id: string;
  claude_session_id: string;
  project_dir: string;
  content_length: number;
  content_sha256: string;
}>;

const [openOne, ended] = [
  sessions.find((s) => s.project_id === 1 && s.ended_at === null),
  sessions.find((s) => s.ended_at !== null),
];
if (openOne === undefined || ended === undefined) throw new Error("the fixture changed");

describe("migration 0017: the sessions move to the turn engine's tables", () => {
  it("keeps every session's point, pin, cost and transcript, and the turns' references", async () => {
    const dir = mkdtempSync(join(tmpdir(), "talkide-engine-0017-"));
    try {
      await databaseOfTheRelease(dir);
      const database = await openDatabase({ databaseUrl: null, dataDir: dir });
      try {
        const { db } = database;
        expect(await migrateToLatest(db)).toEqual(
          expect.arrayContaining([
            "engine/0001-sessions",
            "engine/0002-runs",
            "0017_engine_sessions",
            "0018_engine_runs",
          ]),
        );
        const engine = engineDb(db);

        // The open session: the same point, pinned to the release it started with.
        const open = await openSession(db, openOne.project_id);
        expect(open?.id).toBe(openOne.id);
        expect(open === null ? null : pointOfSession(open)).toEqual({
          id: openOne.claude_session_id,
          at: openOne.resume_at_message_id,
        });
        const shas = { agentSha256: openOne.agent_sha256, pluginSha256: openOne.plugin_sha256 };
        expect(open?.pin).toBe(releasePin(shas));
        expect(open !== null && isPinnedTo(open, releasePin(shas))).toBe(true);
        // Its cost is its turns' (what the release reported as the running total).
        const ofOpen = turns.filter((t) => t.agent_session_id === openOne.id);
        expect(open?.turn_count).toBe(ofOpen.length);
        expect(open?.cumulative_cost_usd).toBeCloseTo(
          ofOpen.reduce((sum, t) => sum + (t.cost_usd ?? 0), 0),
          12,
        );
        expect(open?.scope).toBe(`project:${String(openOne.project_id)}`);

        // Every stored transcript, byte for byte (the open one in 2+ parts).
        expect(parts.filter((p) => p.agent_session_id === openOne.id).length).toBeGreaterThan(1);
        for (const stored of transcripts) {
          const whole = parts
            .filter((p) => p.agent_session_id === stored.agent_session_id)
            .sort((a, b) => a.seq - b.seq)
            .map((p) => p.content)
            .join("");
          const loaded = await loadTranscript(engine, stored.agent_session_id);
          expect(loaded).toEqual({
            sessionId: stored.claude_session_id,
            projectDir: stored.project_dir,
            content: whole,
          });
          expect(loaded?.content.length).toBe(stored.content_length);
          expect(
            createHash("sha256")
              .update(loaded?.content ?? "")
              .digest("hex"),
          ).toBe(stored.content_sha256);
        }

        // The ended session stays ended; no turn was running when it ended.
        const endedNow = await sessionById(engine, ended.id);
        expect(endedNow?.ended_at).not.toBeNull();
        expect(endedNow?.end_reason).toBe("ended");

        // The turns' runs (migration 0018 moved them) still reference their sessions.
        const runs = await runsOf(
          engine,
          turns.map((t) => t.id),
        );
        expect(
          turns.map((t) => ({ id: t.id, session_id: runs.get(t.id)?.session_id ?? null })),
        ).toEqual(turns.map((t) => ({ id: t.id, session_id: t.agent_session_id })));
        for (const run of runs.values()) {
          if (run.session_id !== null)
            expect(await sessionById(engine, run.session_id)).not.toBeNull();
        }
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("ends a session with the reset of the turn that ended it, and pins none of unknown release", async () => {
    const dir = mkdtempSync(join(tmpdir(), "talkide-engine-0017-reset-"));
    try {
      await databaseOfTheRelease(dir);
      const database = await openDatabase({ databaseUrl: null, dataDir: dir });
      try {
        const { db } = database;
        const member = RELEASE.tables.members?.find((m) => m.project_id === 1);
        // A session of an unknown release, ended by a turn that found Claude Code had lost it.
        await sql`UPDATE agent_sessions SET ended_at = now() - interval '1 minute',
            plugin_sha256 = NULL WHERE id = ${openOne.id}`.execute(db);
        await sql`INSERT INTO turns (id, project_id, number, member_id, prompt, status,
            session_reset, started_at, finished_at)
          VALUES ('00000000-0000-4000-8000-0000000000aa', 1, 99, ${String(member?.id)}, 'x',
            'failed', 'unknown_session', now() - interval '2 minutes', now())`.execute(db);
        await migrateToLatest(db);
        const moved = await sessionById(engineDb(db), openOne.id);
        expect(moved).toMatchObject({ end_reason: "unknown_session", pin: null });
        expect(await openSession(db, 1)).toBeNull();
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a turn after the upgrade resumes the project's session where it stood", async () => {
    const harness = await startHarness({
      prepareDataDir: (dataDir) => databaseOfTheRelease(dataDir, join(dataDir, "workspaces")),
      // The fake CLI resumes any session (the release's ran on another machine).
      claudeEnv: { FAKE_CLAUDE_STATE_DIR: "" },
    });
    try {
      const member = RELEASE.tables.members?.find((m) => m.project_id === openOne.project_id);
      const { secret } = await issueApiToken(harness.service.database.db, String(member?.user_id), {
        name: "test",
        lifetimeDays: 1,
      });
      const turn = await sendMessage(harness, secret, openOne.project_id, "A pokračujeme.");
      const done = terminalEvent(turn.events);
      expect(done.event).toBe("turn.succeeded");
      expect(turn.events.map((e) => e.event)).not.toContain("session.reset");
      expect(done.data).toMatchObject({ resumed: true, sessionId: openOne.claude_session_id });
      // The running total continues from the release's turns.
      const before = turns
        .filter((t) => t.agent_session_id === openOne.id)
        .reduce((sum, t) => sum + (t.cost_usd ?? 0), 0);
      expect(done.data.cumulativeCostUsd).toBeCloseTo(before + Number(done.data.costUsd), 9);
    } finally {
      await harness.close();
    }
  });
});
