import { startFakeMessagesApi, type FakeMessagesApi } from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addMember,
  api,
  defaultProject,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
} from "./test-support/harness.ts";
import { REAL_CLAUDE, realClaudeCanRun } from "./test-support/wire-harness.ts";
import {
  advanceElsewhere,
  openProjectSession,
  sessionState,
} from "./test-support/engine-sessions.ts";

const canRun = realClaudeCanRun("the @talkide/be warm-turn wire suite");

/**
 * Issue 15 at the wire, with the pinned CLI: a turn in the project's kept ("warm") process and
 * a turn in a new ("cold") process that resumes the same session at the same point send the
 * same request, byte for byte. The cold turn is made by putting the session back where the
 * warm turn started (its row and stored transcript, as after the first turn) and ending the
 * kept process, then sending the same message again.
 */
describe.skipIf(!canRun)("at the wire: warm and cold turns of the same state", () => {
  let fake: FakeMessagesApi;
  let harness: Harness;

  beforeAll(async () => {
    fake = await startFakeMessagesApi({ reply: () => ({ text: "Rozumím." }) });
    harness = await startHarness({
      env: { TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "", ANTHROPIC_BASE_URL: fake.url },
    });
  });
  afterAll(async () => {
    await harness.close();
    await fake.close();
  });

  it("sends byte-identical requests, and a changed context makes the next turn cold", async () => {
    const { db } = harness.service.database;
    const anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
    const created = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    const projectId = created.body.project.id;
    const send = async (text: string) => {
      const before = fake.requests.length;
      const turn = await sendMessage(harness, anna.token, projectId, text);
      expect(terminalEvent(turn.events).event).toBe("turn.succeeded");
      const started = turn.events.find((e) => e.event === "turn.started")?.data ?? {};
      return { started, requests: fake.requests.slice(before) };
    };

    const first = await send("První zpráva.");
    expect(first.started).toMatchObject({ process: "cold", coldReason: "new_session" });
    // The state after the first turn: where the second starts from.
    const session = await openProjectSession(db, projectId);
    const afterFirst = await sessionState(db, session);

    const warm = await send("Druhá zpráva.");
    expect(warm.started).toEqual({
      turnId: expect.any(String) as string,
      resume: true,
      process: "warm",
    });

    // Back to the state after the first turn, without the kept process.
    await advanceElsewhere(db, session.id, afterFirst.point, afterFirst.transcript);
    harness.service.warm.prune(() => false, "idle_timeout");

    const cold = await send("Druhá zpráva.");
    expect(cold.started).toMatchObject({ process: "cold", coldReason: "idle_timeout" });
    expect(warm.requests.length).toBeGreaterThan(0);
    expect(cold.requests.map((r) => r.rawBody)).toEqual(warm.requests.map((r) => r.rawBody));

    // A new writer changes the context the kept process read: the next turn starts cold.
    const bob = await harness.createUser({ email: "bob@example.com", displayName: "Bob" });
    await addMember(harness, anna.token, projectId, {
      email: "bob@example.com",
      salutation: "Bob",
    });
    const bobsTurn = await sendMessage(harness, bob.token, projectId, "Ahoj, tady Bob.");
    expect(terminalEvent(bobsTurn.events).event).toBe("turn.succeeded");
    expect(bobsTurn.events.find((e) => e.event === "turn.started")?.data).toMatchObject({
      process: "cold",
      coldReason: "context_changed",
    });
  });
});
