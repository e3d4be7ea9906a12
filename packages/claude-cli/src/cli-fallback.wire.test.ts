import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliFallbackIn } from "./cli-fallback.ts";
import { readRuntimeTranscript } from "./runtime-transcript.ts";
import {
  startFakeMessagesApi,
  type FakeMessagesApi,
  type FakeReply,
  type RecordedRequest,
} from "./testing/fake-messages-api.ts";
import { runOneTurn } from "./testing/one-turn.ts";
import { REAL_CLAUDE_PATH, realClaudeEnv, realClaudeSuiteCanRun } from "./testing/real-claude.ts";

const canRun = realClaudeSuiteCanRun("claude-cli fallback detection");

// Both apps record a turn during which the CLI turned tool search off by reading the reminder
// line the pinned CLI appends to the session's transcript (cli-fallback.ts). This holds the
// detection to the real CLI: a bump that rewords or drops the line fails here, not in a bill.

type Tool = { readonly name?: string; readonly defer_loading?: unknown };
const toolsOf = (request: RecordedRequest): readonly Tool[] =>
  (request.body as { tools?: Tool[] } | null)?.tools ?? [];

describe.skipIf(!canRun)("the CLI's fallback, read from the transcript of the pinned CLI", () => {
  let api: FakeMessagesApi;
  let root: string;
  let refuseDeferred = false;

  beforeAll(async () => {
    // As a gateway that does not accept the field: a 400 for any request offering a deferred tool.
    api = await startFakeMessagesApi({
      reply: (request): FakeReply => {
        const deferred = toolsOf(request).findIndex((tool) => tool.defer_loading === true);
        return refuseDeferred && deferred !== -1
          ? {
              error: {
                status: 400,
                type: "invalid_request_error",
                message: `tools.${deferred}.defer_loading: Extra inputs are not permitted`,
              },
            }
          : { text: "Done." };
      },
    });
    root = await mkdtemp(join(tmpdir(), "claude-cli-fallback-"));
  });
  afterAll(async () => {
    await api.close();
    await rm(root, { recursive: true, force: true });
  });

  async function turnIn(name: string): Promise<{ content: string; requests: RecordedRequest[] }> {
    const cwd = join(root, name);
    await mkdir(cwd, { recursive: true });
    const home = join(root, `home-${name}`);
    const before = api.requests.length;
    const result = await runOneTurn({
      claudePath: REAL_CLAUDE_PATH ?? "",
      cwd,
      env: realClaudeEnv({ baseUrl: api.url, home }),
      prompt: "Please look at the build.",
      timeoutMs: 120_000,
    });
    if (!result.ok) throw new Error(`turn failed: ${JSON.stringify(result)}`);
    const transcript = await readRuntimeTranscript(join(home, ".claude"), result.sessionId);
    if (transcript === null) throw new Error("the CLI left no transcript");
    const requests = api.requests
      .slice(before)
      .filter((r) => (r.body as { messages?: unknown } | null)?.messages !== undefined);
    return { content: transcript.content, requests };
  }

  it("finds no fallback in a turn the gateway accepted", async () => {
    const { content, requests } = await turnIn("accepted");
    expect(requests.some((r) => toolsOf(r).some((t) => t.defer_loading === true))).toBe(true);
    expect(cliFallbackIn(content)).toBeNull();
  });

  it("finds tool_search_off in the turn during which the CLI turned tool search off", async () => {
    refuseDeferred = true;
    const { content, requests } = await turnIn("refused");
    const answered = requests.at(-1);
    if (answered === undefined) throw new Error("no request reached the stand-in");
    // The refused requests offered deferred tools; the answered one declares every tool in full.
    expect(toolsOf(answered).some((t) => t.defer_loading === true)).toBe(false);
    expect(toolsOf(answered).length).toBeGreaterThan(toolsOf(requests[0] ?? answered).length);
    expect(cliFallbackIn(content)).toBe("tool_search_off");
  });
});
