import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  defaultProject,
  freshPostgresDatabase,
  parseSse,
  postgresAvailable,
  startHarness,
  type Harness,
  type SseEvent,
  type TestUser,
} from "../test-support/harness.ts";

interface TurnRecord {
  id: string;
  number: number;
  status: string;
  message: string;
  startedAt: string | null;
  finishedAt: string | null;
}

async function readEvents(
  instance: Harness,
  user: TestUser,
  path: string,
  lastEventId?: number,
): Promise<SseEvent[]> {
  const response = await fetch(`${instance.url}${path}`, {
    headers: {
      authorization: `Bearer ${user.token}`,
      ...(lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) }),
    },
  });
  return parseSse(await response.text());
}

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Two backend instances on one PostgreSQL server, the fake `claude` keeping its sessions in a
 * directory both share: turns of one project are serialised across the instances, and a
 * client of either instance follows every turn, whichever instance runs it.
 */
describe.skipIf(!postgresAvailable())("two backend instances on one PostgreSQL server", () => {
  const instances: Harness[] = [];
  let anna: TestUser;
  let dropDatabase: () => Promise<void>;
  const sharedState = mkdtempSync(join(tmpdir(), "talkide-be-instances-"));

  beforeAll(async () => {
    const database = await freshPostgresDatabase();
    dropDatabase = () => database.dispose();
    for (let i = 0; i < 2; i += 1) {
      instances.push(
        await startHarness({
          databaseUrl: database.url,
          claudeEnv: { FAKE_CLAUDE_STATE_DIR: join(sharedState, "fake-claude-state") },
        }),
      );
    }
    anna = await (instances[0] as Harness).createUser({
      email: "anna@example.com",
      displayName: "Anna",
    });
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await dropDatabase();
    rmSync(sharedState, { recursive: true, force: true });
  });

  function setClaudeEnv(name: string, value: string | undefined): void {
    for (const instance of instances) {
      if (value === undefined) Reflect.deleteProperty(instance.claudeEnv, name);
      else instance.claudeEnv[name] = value;
    }
  }

  async function newProject(): Promise<number> {
    const created = await api<{ project: { id: number } }>(
      instances[0] as Harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    return created.body.project.id;
  }

  it("runs one turn of a project at a time, in order, with messages alternating between instances", async () => {
    const projectId = await newProject();
    setClaudeEnv("FAKE_CLAUDE_RUN", "sleep 0.3");
    try {
      for (let i = 0; i < 6; i += 1) {
        const posted = await api(
          instances[i % 2] as Harness,
          anna.token,
          "POST",
          `/v1/projects/${projectId}/messages`,
          { text: `message ${i}` },
        );
        expect(posted.status).toBe(202);
      }
      const turns = await until(async () => {
        const list = await api<{ turns: TurnRecord[] }>(
          instances[1] as Harness,
          anna.token,
          "GET",
          `/v1/projects/${projectId}/turns`,
        );
        const all = list.body.turns;
        return all.length === 6 && all.every((t) => t.finishedAt !== null) ? all : undefined;
      });
      const byNumber = [...turns].sort((a, b) => a.number - b.number);
      expect(byNumber.map((t) => [t.message, t.status])).toEqual(
        Array.from({ length: 6 }, (_, i) => [`message ${i}`, "succeeded"]),
      );
      // From the turn records: each turn started after the one before it had finished.
      for (let i = 1; i < byNumber.length; i += 1) {
        const previous = byNumber[i - 1] as TurnRecord;
        const current = byNumber[i] as TurnRecord;
        expect(Date.parse(current.startedAt ?? "")).toBeGreaterThanOrEqual(
          Date.parse(previous.finishedAt ?? ""),
        );
      }
    } finally {
      setClaudeEnv("FAKE_CLAUDE_RUN", undefined);
    }
  });

  it("streams a turn to clients of both instances, and resumes after Last-Event-ID with no gap or duplicate", async () => {
    const projectId = await newProject();
    const gate = join(sharedState, "gate");
    setClaudeEnv("FAKE_CLAUDE_RUN", `while [ ! -f '${gate}' ]; do sleep 0.02; done`);
    try {
      const posted = await api<{ turn: { id: string } }>(
        instances[0] as Harness,
        anna.token,
        "POST",
        `/v1/projects/${projectId}/messages`,
        { text: "followed everywhere" },
      );
      const path = `/v1/projects/${projectId}/turns/${posted.body.turn.id}/events`;
      const streams = instances.map((instance) => readEvents(instance, anna, path));
      // Both subscribed while the turn is held; then it finishes on whichever instance took it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      writeFileSync(gate, "");
      const [onA = [], onB = []] = await Promise.all(streams);
      for (const events of [onA, onB]) {
        expect(events.map((event) => event.id)).toEqual(
          Array.from({ length: events.length }, (_, i) => i + 1),
        );
        expect(events[0]?.event).toBe("turn.queued");
        expect(events.at(-1)?.event).toBe("turn.succeeded");
      }
      expect(onB).toEqual(onA);
      for (const instance of instances) {
        const rest = await readEvents(instance, anna, path, 2);
        expect(rest).toEqual(onA.slice(2));
      }
    } finally {
      setClaudeEnv("FAKE_CLAUDE_RUN", undefined);
    }
  });
});
