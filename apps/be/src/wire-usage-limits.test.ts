import {
  startFakeMessagesApi,
  type FakeMessagesApi,
  type FakeReply,
} from "@talkide/claude-cli/testing";
import type { Turn } from "@talkide/be-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  defaultProject,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "./test-support/harness.ts";
import { runOfTurn } from "./test-support/engine-sessions.ts";
import { REAL_CLAUDE, realClaudeCanRun } from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be usage-limit wire suite");

/**
 * Issue 51's limits with the pinned CLI: a member's daily spend of $0.05 (the first request of
 * a fresh session writes some 13,500 tokens to the 1-hour cache, about $0.11). The turn whose
 * second request would go over it fails cleanly with `usage_limit_reached` (the gateway refused
 * that request before it left, and the CLI did not retry it); the next message is refused before
 * anything is spawned; both messages stay; once the operator raises the limit, a retry runs.
 */
describe.skipIf(!canRun)("at the wire: a spend limit stops turns cleanly", () => {
  let fake: FakeMessagesApi;
  let harness: Harness;
  let anna: TestUser;

  beforeAll(async () => {
    // The model reads a file first (a second request), then answers.
    fake = await startFakeMessagesApi({
      reply: (request): FakeReply =>
        JSON.stringify(request.body).includes('"tool_result"')
          ? { text: "Hotovo." }
          : {
              content: [
                {
                  type: "tool_use",
                  id: "toolu_01Read",
                  name: "Read",
                  input: { file_path: "CLAUDE.md" },
                },
              ],
            },
    });
    harness = await startHarness({
      env: {
        TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "",
        ANTHROPIC_BASE_URL: fake.url,
        TALKIDE_LIMIT_USER_DAY_USD: "0.05",
      },
    });
    anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
  });
  afterAll(async () => {
    await harness.close();
    await fake.close();
  });

  it("fails the turn with the limit's words, keeps the message, and a retry runs once it is raised", async () => {
    const created = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    const projectId = created.body.project.id;
    const turnOf = async (turnId: string) =>
      (
        await api<{ turn: Turn }>(
          harness,
          anna.token,
          "GET",
          `/v1/projects/${projectId}/turns/${turnId}`,
        )
      ).body.turn;

    // 1. Under the limit when it starts; its second request would go over it.
    let before = fake.requests.length;
    const first = await sendMessage(harness, anna.token, projectId, "Přečti si CLAUDE.md.");
    const firstFailed = terminalEvent(first.events);
    expect(firstFailed.event).toBe("turn.failed");
    expect(firstFailed.data).toMatchObject({ code: "usage_limit_reached" });
    const message = String(firstFailed.data.message);
    expect(message).toMatch(
      /^Your daily spending limit of \$0\.05 is reached \(\$0\.\d\d used today \(UTC\)\)\./,
    );
    expect(message).toContain(
      "the service's operator can raise it with TALKIDE_LIMIT_USER_DAY_USD",
    );
    // Only the first request reached the provider; the refused one was not retried.
    expect(fake.messageRequests().length - before).toBe(1);
    expect(first.events.filter((e) => e.event === "agent.api_retry")).toEqual([]);
    const firstTurn = await turnOf(String(firstFailed.data.turnId));
    expect(firstTurn).toMatchObject({
      status: "failed",
      message: "Přečti si CLAUDE.md.",
      error: { code: "usage_limit_reached", message },
    });
    // What the first request cost was spent, and is on the turn.
    expect(firstTurn.costUsd).toBeGreaterThan(0.05);

    // 2. Over the limit before it starts: nothing is spawned, nothing reaches the provider.
    before = fake.requests.length;
    const second = await sendMessage(harness, anna.token, projectId, "A co dál?");
    const secondFailed = terminalEvent(second.events);
    expect(secondFailed.data).toMatchObject({
      code: "usage_limit_reached",
      message: expect.stringContaining("TALKIDE_LIMIT_USER_DAY_USD") as string,
    });
    expect(fake.requests.length).toBe(before);
    const secondTurn = await turnOf(String(secondFailed.data.turnId));
    expect(secondTurn).toMatchObject({ status: "failed", message: "A co dál?", costUsd: 0 });
    // Its run ended before any process was started: no marker to look for.
    const run = await runOfTurn(harness.service.database.db, secondTurn.id);
    expect(run).toMatchObject({
      outcome: "failed",
      failure_code: "usage_limit_reached",
      process: null,
      process_marker: null,
    });

    // 3. The operator raises the limit; a retry of the refused message runs.
    await harness.restart({ TALKIDE_LIMIT_USER_DAY_USD: "20" });
    const retried = await api<{ turn: Turn }>(
      harness,
      anna.token,
      "POST",
      `/v1/projects/${projectId}/turns/${secondTurn.id}/retry`,
    );
    expect(retried.status).toBe(202);
    const events = await fetch(
      `${harness.url}/v1/projects/${projectId}/turns/${retried.body.turn.id}/events`,
      {
        headers: { authorization: `Bearer ${anna.token}` },
      },
    ).then((r) => r.text());
    expect(events).toContain("event: turn.succeeded");
    expect(await turnOf(retried.body.turn.id)).toMatchObject({
      status: "succeeded",
      message: "A co dál?",
      resultText: "Hotovo.",
    });
  }, 300_000);
});
