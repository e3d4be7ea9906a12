import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import { buildMemberMessage } from "@talkide/prompts";
import { waitFor } from "@talkide/service-kit/testing";
import { engineDb, processMarkersOf, sessionPoints, transcriptParts } from "@talkide/turn-engine";
import { afterEach, describe, expect, it } from "vitest";
import {
  api,
  defaultProject,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";
import {
  advanceElsewhere,
  openProjectSession,
  sessionState,
} from "../test-support/engine-sessions.ts";

/**
 * Warm turns (issue 15) with the fake CLI: when a project's next turn runs in its kept
 * process, and every reason it does not, as the turn records and events say it.
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

async function setup(env: Record<string, string> = {}) {
  // Made before the service starts: the fake's environment is part of what a kept process
  // stands for, so a test changes the scenario through a file, not through the environment.
  const harness = await startHarness({ env });
  harnesses.push(harness);
  const scenarioFile = join(harness.dataDir, "scenario");
  const record = join(harness.dataDir, "record.jsonl");
  harness.claudeEnv.FAKE_CLAUDE_SCENARIO_FILE = scenarioFile;
  harness.claudeEnv.FAKE_CLAUDE_RECORD = record;
  const anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
  return { harness, anna, scenarioFile, record };
}

async function newProject(harness: Harness, user: TestUser, name = defaultProject.name) {
  const created = await api<{ project: { id: number; workspaceDir: string } }>(
    harness,
    user.token,
    "POST",
    "/v1/projects",
    { ...defaultProject, name },
  );
  expect(created.status).toBe(201);
  return created.body.project;
}

async function turn(harness: Harness, user: TestUser, projectId: number, text: string) {
  const sent = await sendMessage(harness, user.token, projectId, text);
  const started = sent.events.find((e) => e.event === "turn.started")?.data ?? {};
  return { started, done: terminalEvent(sent.events) };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls a condition; the bound only keeps a broken build from hanging. */
async function until(condition: () => boolean, what: string): Promise<void> {
  await waitFor(() => Promise.resolve(condition() ? true : null), what, 30_000);
}

describe("warm turns", () => {
  it("ends the process of a failed turn; the next turn resumes cold from the last success", async () => {
    const { harness, anna, scenarioFile, record } = await setup();
    const project = await newProject(harness, anna);
    expect((await turn(harness, anna, project.id, "one")).started).toMatchObject({
      process: "cold",
    });
    writeFileSync(scenarioFile, "is_error\n");
    const failed = await turn(harness, anna, project.id, "two");
    expect(failed.started).toMatchObject({ process: "warm" });
    expect(failed.done.event).toBe("turn.failed");
    writeFileSync(scenarioFile, "ok\n");
    const third = await turn(harness, anna, project.id, "three");
    expect(third.started).toMatchObject({ process: "cold", coldReason: "previous_turn_failed" });
    expect(third.done.event).toBe("turn.succeeded");
    const records = await readFakeClaudeRecords(record);
    expect(records.map((r) => r.stdin)).toEqual(["one", "two", "three"].map(buildMemberMessage));
    // The failed turn's process is gone, and the cold turn resumes at the first turn's end.
    await until(() => !alive(records[1]?.pid ?? 0), "the failed turn's process to exit");
    expect(records[2]?.argv).toContain("--resume-session-at");
  });

  it("starts cold when the agent wrote an instruction file into its workspace (moved out first)", async () => {
    const { harness, anna } = await setup();
    const project = await newProject(harness, anna);
    await turn(harness, anna, project.id, "one");
    expect((await turn(harness, anna, project.id, "two")).started).toMatchObject({
      process: "warm",
    });
    mkdirSync(join(project.workspaceDir, ".claude", "rules"), { recursive: true });
    writeFileSync(join(project.workspaceDir, ".claude", "rules", "x.md"), "Be brief.\n");
    expect((await turn(harness, anna, project.id, "three")).started).toMatchObject({
      process: "cold",
      coldReason: "context_changed",
    });
    // Moved out of the workspace before that turn (issue 49).
    expect(existsSync(join(project.workspaceDir, ".claude", "rules", "x.md"))).toBe(false);
    // Planted again, by the same name: a process that was alive meanwhile is not reused.
    writeFileSync(join(project.workspaceDir, ".claude", "rules", "x.md"), "Be briefer.\n");
    expect((await turn(harness, anna, project.id, "four")).started).toMatchObject({
      process: "cold",
      coldReason: "context_changed",
    });
  });

  it("keeps at most the cap, evicting the least recently used project's process", async () => {
    const { harness, anna } = await setup({ TALKIDE_WARM_PROCESSES: "1" });
    const a = await newProject(harness, anna, "Project A");
    const b = await newProject(harness, anna, "Project B");
    await turn(harness, anna, a.id, "a1");
    await turn(harness, anna, b.id, "b1");
    expect(harness.service.warm.size).toBe(1);
    expect((await turn(harness, anna, a.id, "a2")).started).toMatchObject({
      process: "cold",
      coldReason: "evicted",
    });
    expect((await turn(harness, anna, a.id, "a3")).started).toMatchObject({ process: "warm" });
  });

  it("runs every turn cold with a cap of 0", async () => {
    const { harness, anna, record } = await setup({ TALKIDE_WARM_PROCESSES: "0" });
    const project = await newProject(harness, anna);
    await turn(harness, anna, project.id, "one");
    expect((await turn(harness, anna, project.id, "two")).started).toMatchObject({
      process: "cold",
      coldReason: "warm_disabled",
    });
    const records = await readFakeClaudeRecords(record);
    expect(new Set(records.map((r) => r.pid)).size).toBe(2);
    // Each ends once its turn is over (its input is closed; it exits on its own).
    await until(() => records.every((r) => !alive(r.pid)), "both processes to exit");
  });

  it("ends a kept process once its session moved on elsewhere, and says so", async () => {
    const { harness, anna } = await setup();
    const project = await newProject(harness, anna);
    await turn(harness, anna, project.id, "one");
    const { db } = harness.service.database;
    // As another instance's turn would leave it.
    const session = await openProjectSession(db, project.id);
    const { point } = await sessionState(db, session);
    await advanceElsewhere(db, session.id, {
      ...point,
      at: "00000000-0000-4000-8000-000000000000",
    });
    const points = (keys: readonly string[]) => sessionPoints(engineDb(db), keys);
    expect(await harness.service.warm.pruneMoved(points)).toBe(1);
    expect(harness.service.warm.size).toBe(0);
    expect(await harness.service.warm.pruneMoved(points)).toBe(0);
  });

  it("records the process marker of a warm turn, and ends kept processes with the service", async () => {
    const { harness, anna, record } = await setup();
    const project = await newProject(harness, anna);
    const first = await turn(harness, anna, project.id, "one");
    const second = await turn(harness, anna, project.id, "two");
    const firstId = String(first.done.data.turnId);
    const secondId = String(second.done.data.turnId);
    const markers = await processMarkersOf(engineDb(harness.service.database.db), [secondId]);
    expect(markers.sort()).toEqual([firstId, secondId].sort());
    const [kept] = await readFakeClaudeRecords(record);
    expect(alive(kept?.pid ?? 0)).toBe(true);
    await harness.service.close();
    expect(alive(kept?.pid ?? 0)).toBe(false);
  });

  it("stores only a warm turn's new transcript lines, never onto another instance's copy", async () => {
    const { harness, anna } = await setup();
    const { db } = harness.service.database;
    const project = await newProject(harness, anna);
    const first = await turn(harness, anna, project.id, "one");
    const sessionId = first.done.data.sessionId as string;
    // The fake CLI keeps no transcript: the test writes the file as the CLI appends to it.
    const file = join(harness.dataDir, "claude", "projects", "-ws", `${sessionId}.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    const stored = async () => {
      const session = await openProjectSession(db, project.id);
      const parts = await transcriptParts(engineDb(db), session.id);
      return { session, parts: parts.map((part) => part.content) };
    };
    const warmTurn = async (text: string) => {
      const done = await turn(harness, anna, project.id, text);
      expect(done.started).toMatchObject({ process: "warm" });
      expect(done.done.event).toBe("turn.succeeded");
    };

    writeFileSync(file, '{"n":1}\n');
    await warmTurn("two");
    expect((await stored()).parts).toEqual(['{"n":1}\n']);
    appendFileSync(file, '{"n":2}\n');
    await warmTurn("three");
    // Only the new line went to the database, after the copy this instance stored.
    expect((await stored()).parts).toEqual(['{"n":1}\n', '{"n":2}\n']);

    // Another instance stores a transcript of its own for the session meanwhile.
    const { session } = await stored();
    const { point } = await sessionState(db, session);
    await advanceElsewhere(
      db,
      session.id,
      point,
      { sessionId, projectDir: "-ws", content: '{"n":9}\n' },
      "00000000-0000-4000-8000-0000000000ff",
    );
    appendFileSync(file, '{"n":3}\n');
    await warmTurn("four");
    // Not appended onto the other copy: the file, whole, as the only part.
    expect((await stored()).parts).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
    appendFileSync(file, '{"n":4}\n');
    await warmTurn("five");
    expect((await stored()).parts).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n']);
  });
});
