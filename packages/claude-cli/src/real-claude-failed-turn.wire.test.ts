import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOneTurn } from "./testing/one-turn.ts";
import type { ClaudeTurnResult, ClaudeTurnSuccess } from "./turn-result.ts";
import { startFakeMessagesApi, type FakeMessagesApi } from "./testing/fake-messages-api.ts";
import { REAL_CLAUDE_PATH, realClaudeEnv, realClaudeSuiteCanRun } from "./testing/real-claude.ts";
import type { ClaudeStreamEvent } from "./stream-json.ts";
import { lastUserPrompt } from "./testing/wire.ts";
import { isSyntheticAssistantEvent, turnErrorFor } from "./turn-error.ts";
import { isUnknownSessionFailure } from "./unknown-session.ts";

// The real Claude Code CLI against the fake Messages API: a failed turn must not become part
// of the session, and the runtime's error text must be recognisable as the runtime's.
// Findings: WIRE-NOTES.md, "Failed turns and runtime errors".

/** The model refuses every request that carries this word (as a too-long or banned input would). */
const POISON = "Quokka-poison-7f3e";
const GATEWAY_MESSAGE = "refused by gateway";

const canRun = realClaudeSuiteCanRun("claude-cli wire suite (failed turns)");

describe.skipIf(!canRun)("real claude at the wire: failed turns", () => {
  const claudePath = REAL_CLAUDE_PATH ?? "";
  let api: FakeMessagesApi;
  let root: string;

  beforeAll(async () => {
    api = await startFakeMessagesApi({
      reply: (request) =>
        request.rawBody.includes(POISON)
          ? { error: { status: 400, type: "invalid_request_error", message: GATEWAY_MESSAGE } }
          : { text: "Noted." },
    });
    root = await mkdtemp(join(tmpdir(), "claude-wire-failed-"));
  });
  afterAll(async () => {
    await api.close();
    await rm(root, { recursive: true, force: true });
  });

  /** One project and one CLI home per scenario, so the sessions cannot meet. */
  async function scenario(name: string) {
    const project = join(root, name, "project");
    await mkdir(project, { recursive: true });
    await writeFile(join(project, "CLAUDE.md"), "# Project\n\nRules of the house.\n");
    const env = realClaudeEnv({
      baseUrl: api.url,
      home: join(root, name, "home"),
      // One refused request per turn, without the CLI's backoff between retries.
      extra: { CLAUDE_CODE_MAX_RETRIES: "0" },
    });
    return (
      prompt: string,
      resume?: { sessionId: string; atMessageId?: string | null },
      onEvent?: (event: ClaudeStreamEvent) => void,
    ) =>
      runOneTurn({
        onEvent,
        claudePath,
        cwd: project,
        prompt,
        env,
        timeoutMs: 60_000,
        resumeSessionId: resume?.sessionId,
        resumeAtMessageId: resume?.atMessageId ?? undefined,
        extraArgs: ["--exclude-dynamic-system-prompt-sections"],
      });
  }

  function succeeded(result: ClaudeTurnResult): ClaudeTurnSuccess {
    if (!result.ok) throw new Error(`turn failed: ${JSON.stringify(result)}`);
    return result;
  }

  function requestsSince(before: number) {
    return api.messageRequests().slice(before);
  }

  it("a plain resume after a refused turn replays it: the bug resume-at exists for", async () => {
    const turn = await scenario("plain");
    const first = succeeded(await turn("Hello there."));
    const failed = await turn(`Please read ${POISON}.`, { sessionId: first.sessionId });
    expect(failed.ok).toBe(false);
    const before = api.messageRequests().length;
    await turn("Next message.", { sessionId: first.sessionId });
    const next = requestsSince(before);
    expect(next.length).toBeGreaterThan(0);
    // The failed prompt is replayed, so the model refuses every later turn too.
    expect(next[0]?.rawBody).toContain(POISON);
  });

  it("resuming at the last successful message leaves no byte of the failed turn in the request", async () => {
    const turn = await scenario("resume-at");
    const first = succeeded(await turn("Hello there."));
    expect(first.lastMessageId).toMatch(/^[0-9a-f-]{36}$/);
    const failedPrompt = `Please read ${POISON}.`;
    const failed = await turn(failedPrompt, {
      sessionId: first.sessionId,
      atMessageId: first.lastMessageId,
    });
    if (failed.ok) throw new Error("the refused turn succeeded");
    expect(failed.reason).toBe("is_error");
    expect(failed.sessionId).toBe(first.sessionId);
    expect(turnErrorFor(failed).code).toBe("model_request_rejected");
    expect(turnErrorFor(failed).message).not.toContain(GATEWAY_MESSAGE);

    const before = api.messageRequests().length;
    const next = succeeded(
      await turn("Next message.", { sessionId: first.sessionId, atMessageId: first.lastMessageId }),
    );
    expect(next.sessionId).toBe(first.sessionId);
    const requests = requestsSince(before);
    expect(requests).toHaveLength(1);
    const body = requests[0]?.rawBody ?? "";
    expect(lastUserPrompt(requests[0] ?? expect.unreachable())).toBe("Next message.");
    for (const trace of [POISON, failedPrompt, GATEWAY_MESSAGE, "API Error"]) {
      expect(body).not.toContain(trace);
    }

    // The conversation goes on from there: the next resume point is this turn's last message.
    const third = succeeded(
      await turn("Third message.", { sessionId: first.sessionId, atMessageId: next.lastMessageId }),
    );
    const last = api.messageRequests().at(-1)?.rawBody ?? "";
    expect(last).toContain("Next message.");
    expect(last).not.toContain(POISON);
    expect(third.sessionId).toBe(first.sessionId);
  });

  it("a resume at the last message of a clean session sends the bytes of a plain resume", async () => {
    const plain = await scenario("clean-plain");
    const at = await scenario("clean-at");
    const requestOf = async (
      turn: Awaited<ReturnType<typeof scenario>>,
      useAt: boolean,
      name: string,
    ) => {
      const first = succeeded(await turn("Hello there."));
      const before = api.messageRequests().length;
      succeeded(
        await turn("Next message.", {
          sessionId: first.sessionId,
          atMessageId: useAt ? first.lastMessageId : null,
        }),
      );
      const body = (requestsSince(before)[0]?.body ?? {}) as { messages?: unknown };
      // The scenarios differ only in their directory name, which the paths carry.
      return JSON.stringify(body.messages).split(name).join("<scenario>");
    };
    expect(await requestOf(at, true, "clean-at")).toBe(
      await requestOf(plain, false, "clean-plain"),
    );
  });

  it("a resume point the session does not have fails like an unknown session, before any request", async () => {
    const turn = await scenario("unknown-point");
    const first = succeeded(await turn("Hello there."));
    const before = api.messageRequests().length;
    const result = await turn("Next message.", {
      sessionId: first.sessionId,
      atMessageId: "11111111-2222-4333-8444-555555555555",
    });
    expect(isUnknownSessionFailure(result)).toBe(true);
    expect(requestsSince(before)).toHaveLength(0);
  });

  it("the runtime's error text arrives as a synthetic assistant message, never as the model's", async () => {
    const turn = await scenario("synthetic");
    const events: ClaudeStreamEvent[] = [];
    const failed = await turn(`Please read ${POISON}.`, undefined, (event) => events.push(event));
    expect(failed.ok).toBe(false);
    const synthetic = events.filter(isSyntheticAssistantEvent);
    expect(synthetic).toHaveLength(1);
    expect(JSON.stringify(synthetic[0])).toContain(GATEWAY_MESSAGE);
    // Every other assistant event would be the model's words: there is none.
    expect(events.filter((e) => e.type === "assistant")).toHaveLength(1);
  });
});
