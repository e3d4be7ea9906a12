import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  defaultProject,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";
import { ownerTurnLimit } from "./turn-queue.ts";

// Issue 49, finding 4: one user's 8 slow turns (in 8 projects) held all 8 turn slots and
// another user's turn waited until one of them ended. Now one owner's projects hold at most
// TALKIDE_OWNER_TURN_SHARE of the slots (default 50%: 4 of 8) and the other turn starts at once.
// The time it waits is measured in src/bench/fair-share.bench.ts (BENCHMARKS.md).
let harness: Harness;
let mallory: TestUser;
let anna: TestUser;

beforeAll(async () => {
  harness = await startHarness();
  mallory = await harness.createUser({ email: "mallory@example.com", displayName: "Mallory" });
  anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
});
afterAll(async () => {
  await harness.close();
});

async function newProject(user: TestUser): Promise<number> {
  const created = await api<{ project: { id: number } }>(
    harness,
    user.token,
    "POST",
    "/v1/projects",
    defaultProject,
  );
  return created.body.project.id;
}

async function statusesOf(user: TestUser): Promise<Record<string, number>> {
  const { rows } = await sql<{ status: string; n: number }>`
    SELECT t.status, count(*)::int AS n FROM turns t
    JOIN members m ON m.project_id = t.project_id AND m.role = 'owner'
    JOIN users u ON u.id = m.user_id
    WHERE u.id = ${user.id} GROUP BY t.status`.execute(harness.service.database.db);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

describe("fair share of turn slots (issue 49, finding 4)", () => {
  it("gives one owner at most half of the 8 slots by default", () => {
    expect(ownerTurnLimit(50)).toBe(4);
    expect(ownerTurnLimit(100)).toBe(8);
    expect(ownerTurnLimit(1)).toBe(1);
  });

  it("starts another owner's turn while one owner's 8 slow turns wait for their share", async () => {
    const projects: number[] = [];
    for (let i = 0; i < 8; i += 1) projects.push(await newProject(mallory));
    const annas = await newProject(anna);
    // Mallory's turns take long; every later spawn (Anna's, Mallory's waiting ones) is quick.
    harness.claudeEnv["FAKE_CLAUDE_SCENARIO"] = "slow";
    harness.claudeEnv["FAKE_CLAUDE_DELAY_MS"] = "60000";
    for (const id of projects) {
      const sent = await api(harness, mallory.token, "POST", `/v1/projects/${id}/messages`, {
        text: "Pomalu",
      });
      expect(sent.status).toBe(202);
    }
    for (let i = 0; i < 200; i += 1) {
      if ((await statusesOf(mallory))["running"] === 4) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    delete harness.claudeEnv["FAKE_CLAUDE_SCENARIO"];
    delete harness.claudeEnv["FAKE_CLAUDE_DELAY_MS"];
    expect(await statusesOf(mallory)).toEqual({ running: 4, queued: 4 });

    const turn = await sendMessage(harness, anna.token, annas, "Ahoj");
    expect(terminalEvent(turn.events).event).toBe("turn.succeeded");
    // Anna's turn ran to its end while Mallory's four still ran and four still waited.
    expect(await statusesOf(mallory)).toEqual({ running: 4, queued: 4 });
  }, 120_000);
});
