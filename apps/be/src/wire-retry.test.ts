import { startFakeMessagesApi, type FakeMessagesApi } from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  defaultProject,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
} from "./test-support/harness.ts";
import { REAL_CLAUDE, realClaudeCanRun } from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be API-retry wire suite");

/**
 * The real CLI against a Messages API that fails before it answers: each retry the CLI
 * reports reaches the turn's event stream as `agent.api_retry`, while the turn is running.
 */
describe.skipIf(!canRun)("at the wire: a failing model API", () => {
  let fake: FakeMessagesApi;
  let harness: Harness;
  let failures: Array<{ status: number; type: string }> = [];

  beforeAll(async () => {
    fake = await startFakeMessagesApi({
      reply: () => {
        const failure = failures.shift();
        return failure === undefined
          ? { text: "Hotovo." }
          : { error: { ...failure, message: "stand-in failure" } };
      },
    });
    harness = await startHarness({
      env: { TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "", ANTHROPIC_BASE_URL: fake.url },
    });
  });
  afterAll(async () => {
    await harness.close();
    await fake.close();
  });

  it("streams one agent.api_retry event per retry before the answer", async () => {
    const anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
    const created = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    failures = [
      { status: 529, type: "overloaded_error" },
      { status: 500, type: "api_error" },
    ];
    const turn = await sendMessage(harness, anna.token, created.body.project.id, "Ahoj");
    expect(terminalEvent(turn.events).event).toBe("turn.succeeded");
    const retries = turn.events.filter((e) => e.event === "agent.api_retry");
    expect(retries.map((e) => [e.data.attempt, e.data.status])).toEqual([
      [1, 529],
      [2, 500],
    ]);
    for (const retry of retries) {
      expect(retry.data).toMatchObject({
        maxRetries: expect.any(Number) as number,
        delayMs: expect.any(Number) as number,
      });
      expect(String(retry.data.message)).toMatch(
        /^The model API answered (529|500).*; Claude Code retries \(attempt \d+ of \d+\) in \d+\.\d s\.$/,
      );
      expect(String(retry.data.message)).not.toContain("stand-in failure");
    }
    // The retries come while the turn runs: after agent.init, before the answer's text.
    const names = turn.events.map((e) => e.event);
    expect(names.indexOf("agent.api_retry")).toBeLessThan(names.indexOf("agent.text"));
  });
});
