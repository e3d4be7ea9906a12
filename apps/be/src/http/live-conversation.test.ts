import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventNamesOn } from "@talkide/be-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addMember,
  api,
  defaultProject,
  freshPostgresDatabase,
  postgresAvailable,
  startHarness,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";
import { runOfTurn } from "../test-support/engine-sessions.ts";

interface Frame {
  readonly id: string | null;
  readonly event: string;
  readonly data: Record<string, unknown>;
}
interface TurnBody {
  readonly id: string;
  readonly status: string;
  readonly author: string;
  readonly message: string;
  readonly resultText: string | null;
  readonly stoppedBy: string | null;
}

/** An open console's project stream: frames as they arrive, until closed. */
class ProjectStream {
  readonly frames: Frame[] = [];
  ended = false;
  private readonly abort = new AbortController();

  constructor(url: string, token: string, lastEventId?: string) {
    void this.read(url, token, lastEventId);
  }

  private async read(url: string, token: string, lastEventId?: string): Promise<void> {
    try {
      const response = await fetch(url, {
        headers: {
          authorization: `Bearer ${token}`,
          accept: "text/event-stream",
          ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
        },
        signal: this.abort.signal,
      });
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of response.body ?? []) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const colon = line.indexOf(":");
            fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
          }
          if (!fields.has("event")) continue;
          this.frames.push({
            id: fields.get("id") ?? null,
            event: fields.get("event") ?? "",
            data: JSON.parse(fields.get("data") ?? "{}") as Record<string, unknown>,
          });
        }
      }
    } catch {
      // Closed by the test.
    } finally {
      this.ended = true;
    }
  }

  async waitFor(predicate: (frame: Frame) => boolean, timeoutMs = 15_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(predicate);
      if (found !== undefined) return found;
      if (Date.now() > deadline) {
        throw new Error(`no such frame within ${timeoutMs} ms: ${JSON.stringify(this.frames)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  close(): void {
    this.abort.abort();
  }
}

const turnOf = (frame: Frame): TurnBody => frame.data.turn as TurnBody;
const finished = (turnId: string, status: string) => (frame: Frame) =>
  frame.event === "turn.changed" && turnOf(frame).id === turnId && turnOf(frame).status === status;

describe("one live conversation per project", () => {
  let harness: Harness;
  let anna: TestUser;
  let bob: TestUser;
  let projectId: number;
  const streams: ProjectStream[] = [];
  const follow = (user: TestUser, lastEventId?: string): ProjectStream => {
    const stream = new ProjectStream(
      `${harness.url}/v1/projects/${projectId}/events`,
      user.token,
      lastEventId,
    );
    streams.push(stream);
    return stream;
  };
  const send = async (user: TestUser, text: string): Promise<string> => {
    const sent = await api<{ turn: { id: string } }>(
      harness,
      user.token,
      "POST",
      `/v1/projects/${projectId}/messages`,
      { text },
    );
    expect(sent.status).toBe(202);
    return sent.body.turn.id;
  };

  beforeAll(async () => {
    harness = await startHarness();
    anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
    bob = await harness.createUser({ email: "bob@example.com", displayName: "Bob" });
    const created = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    projectId = created.body.project.id;
    expect(
      (await addMember(harness, anna.token, projectId, { email: bob.email, salutation: "Bob" }))
        .status,
    ).toBe(201);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await harness.close();
  });

  it("shows Anna Bob's message and Mara's answer as they happen, in order, with who wrote it", async () => {
    const annas = follow(anna);
    await annas.waitFor((frame) => frame.event === "ready");
    harness.claudeEnv.FAKE_CLAUDE_RESULT = "Ahoj **Bobe**.";
    try {
      const turnId = await send(bob, "Ahoj Maro");
      const queued = await annas.waitFor(
        (f) => f.event === "turn.changed" && turnOf(f).id === turnId,
      );
      expect(turnOf(queued)).toMatchObject({ author: "Bob", message: "Ahoj Maro" });
      const text = await annas.waitFor((f) => f.event === "turn.text" && f.data.turnId === turnId);
      expect(text.data.text).toBe("Ahoj **Bobe**.");
      const done = await annas.waitFor(finished(turnId, "succeeded"));
      expect(turnOf(done).resultText).toBe("Ahoj **Bobe**.");
      // One numbering for the project: increasing, every frame with an id.
      const ids = annas.frames.filter((f) => f.id !== null).map((f) => Number(f.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      // Every frame is named by the one vocabulary of both apps (its `project` stream).
      for (const frame of annas.frames) expect(eventNamesOn("project")).toContain(frame.event);
    } finally {
      delete harness.claudeEnv.FAKE_CLAUDE_RESULT;
    }
  });

  it("resumes after Last-Event-ID: nothing missed, nothing repeated", async () => {
    const first = follow(anna);
    await first.waitFor((frame) => frame.event === "ready");
    const turnId = await send(anna, "Druhá zpráva");
    await first.waitFor(finished(turnId, "succeeded"));
    const all = first.frames.filter((f) => f.id !== null);
    const cut = all.findIndex((f) => f.event === "turn.changed" && turnOf(f).id === turnId);
    const resumeAt = all[cut]?.id ?? "";
    const resumed = follow(anna, resumeAt);
    await resumed.waitFor((frame) => frame.event === "ready");
    const replayed = resumed.frames.filter((f) => f.id !== null).map((f) => f.id);
    expect(replayed).toEqual(all.slice(cut + 1).map((f) => f.id));
  });

  it("lets any member stop a running turn: stopped with what was answered, and the next message works", async () => {
    const annas = follow(anna);
    await annas.waitFor((frame) => frame.event === "ready");
    harness.claudeEnv.FAKE_CLAUDE_SCENARIO = "text_then_slow";
    harness.claudeEnv.FAKE_CLAUDE_DELAY_MS = "20000";
    let slow: string;
    try {
      slow = await send(bob, "Dlouhá práce");
      await annas.waitFor(
        (f) =>
          f.event === "turn.changed" && turnOf(f).id === slow && turnOf(f).status === "running",
      );
      // Mara has said part of her answer when Anna stops her.
      await annas.waitFor((f) => f.event === "turn.text" && f.data.turnId === slow);
      const stopped = await api<{ turn: TurnBody }>(
        harness,
        anna.token,
        "POST",
        `/v1/projects/${projectId}/turns/${slow}/stop`,
      );
      expect(stopped.status).toBe(202);
      const end = await annas.waitFor(finished(slow, "stopped"));
      expect(turnOf(end)).toMatchObject({
        author: "Bob",
        stoppedBy: "Anna",
        resultText: "Začínám…",
      });
      // Its run ended stopped, what it cost recorded (the fake CLI's requests cost nothing).
      expect(await runOfTurn(harness.service.database.db, slow)).toMatchObject({
        outcome: "stopped",
        failure_code: null,
        claude_session_id: null,
        cost_usd: 0,
      });
      const again = await api(
        harness,
        anna.token,
        "POST",
        `/v1/projects/${projectId}/turns/${slow}/stop`,
      );
      expect(again.body.code).toBe("turn_finished");
    } finally {
      delete harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
      delete harness.claudeEnv.FAKE_CLAUDE_DELAY_MS;
    }
    const next = await send(anna, "A teď?");
    await annas.waitFor(finished(next, "succeeded"));

    // Retry: the stopped message again, written by whoever retries it.
    const retried = await api<{ turn: TurnBody }>(
      harness,
      anna.token,
      "POST",
      `/v1/projects/${projectId}/turns/${slow}/retry`,
    );
    expect(retried.status).toBe(202);
    expect(retried.body.turn).toMatchObject({ message: "Dlouhá práce", author: "Anna" });
    await annas.waitFor(finished(retried.body.turn.id, "succeeded"));
    const notRetryable = await api(
      harness,
      anna.token,
      "POST",
      `/v1/projects/${projectId}/turns/${next}/retry`,
    );
    expect(notRetryable.body.code).toBe("turn_not_retryable");
  });

  it("stops a queued turn before it runs", async () => {
    const annas = follow(anna);
    await annas.waitFor((frame) => frame.event === "ready");
    harness.claudeEnv.FAKE_CLAUDE_SCENARIO = "slow";
    harness.claudeEnv.FAKE_CLAUDE_DELAY_MS = "1500";
    try {
      const running = await send(anna, "první");
      const waiting = await send(bob, "druhá");
      const stopped = await api(
        harness,
        bob.token,
        "POST",
        `/v1/projects/${projectId}/turns/${waiting}/stop`,
      );
      expect(stopped.status).toBe(202);
      const end = await annas.waitFor(finished(waiting, "stopped"));
      expect(turnOf(end)).toMatchObject({ stoppedBy: "Bob", resultText: null });
      // Its run never started: stopped, with nothing of a process, a session or a cost.
      expect(await runOfTurn(harness.service.database.db, waiting)).toMatchObject({
        outcome: "stopped",
        session_id: null,
        process: null,
        process_marker: null,
        cost_usd: null,
      });
      await annas.waitFor(finished(running, "succeeded"));
    } finally {
      delete harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
      delete harness.claudeEnv.FAKE_CLAUDE_DELAY_MS;
    }
  });

  it("tells every open console when the roster changes", async () => {
    const annas = follow(anna);
    await annas.waitFor((frame) => frame.event === "ready");
    const edited = await api(harness, bob.token, "PATCH", `/v1/projects/${projectId}/members/me`, {
      teamBriefing: "Backend.",
    });
    expect(edited.status).toBe(200);
    await annas.waitFor((frame) => frame.event === "members.changed");
  });
});

describe.skipIf(!postgresAvailable())(
  "one live conversation across instances on one PostgreSQL server",
  () => {
    const instances: Harness[] = [];
    let dispose: () => Promise<void>;
    const sharedState = mkdtempSync(join(tmpdir(), "talkide-be-live-"));

    beforeAll(async () => {
      const database = await freshPostgresDatabase();
      dispose = () => database.dispose();
      for (let i = 0; i < 2; i += 1) {
        instances.push(
          await startHarness({
            databaseUrl: database.url,
            claudeEnv: { FAKE_CLAUDE_STATE_DIR: join(sharedState, "fake-claude-state") },
          }),
        );
      }
    });
    afterAll(async () => {
      for (const instance of instances) await instance.close();
      await dispose();
      rmSync(sharedState, { recursive: true, force: true });
    });

    it("a console on one instance sees a turn that another instance runs", async () => {
      const [one, two] = instances as [Harness, Harness];
      const anna = await one.createUser({ email: "anna@example.com", displayName: "Anna" });
      const created = await api<{ project: { id: number } }>(
        one,
        anna.token,
        "POST",
        "/v1/projects",
        defaultProject,
      );
      const projectId = created.body.project.id;
      const onTwo = new ProjectStream(`${two.url}/v1/projects/${projectId}/events`, anna.token);
      try {
        await onTwo.waitFor((frame) => frame.event === "ready");
        const sent = await api<{ turn: { id: string } }>(
          one,
          anna.token,
          "POST",
          `/v1/projects/${projectId}/messages`,
          { text: "Z první instance" },
        );
        await onTwo.waitFor(finished(sent.body.turn.id, "succeeded"));
        expect(onTwo.frames.some((f) => f.event === "turn.text")).toBe(true);
      } finally {
        onTwo.close();
      }
    });
  },
);
