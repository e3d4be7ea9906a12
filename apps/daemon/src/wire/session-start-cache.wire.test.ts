import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  REAL_CLAUDE_PATH,
  realClaudeEnv,
  realClaudeSuiteCanRun,
  startFakeMessagesApi,
  ledgerLine,
  systemBlocks,
  toolsAndSystemTokens,
  type FakeMessagesApi,
  type PromptCacheLedgerEntry,
} from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  makeDelivery,
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";

const canRun = realClaudeSuiteCanRun("The daemon's session-start cache gate");

/**
 * Issue 28's gate for what the daemon decides: the pinned CLI derives the first system block
 * (`x-anthropic-billing-header: cc_version=<version>.<3 hex>`, before every cache breakpoint)
 * from characters 4, 7 and 20 of a session's first prompt. Every wake prompt starts with the
 * same 21 characters (`New message received:`), so the first turn of any conversation, of any
 * agent and workspace, with or without a charter or a quote, reads the tools and the system
 * prompt that an earlier session wrote, from the caching stand-in.
 */
describe.skipIf(!canRun)("the daemon's new sessions, at the provider's prompt cache", () => {
  let dir: string;
  let api: FakeMessagesApi;
  let td: TestDaemon;
  let now = 0;
  const deliveries = [
    ["alice", makeDelivery({ conversation_id: "c-one", text: "Please check the login bug." })],
    [
      "alice",
      makeDelivery({
        conversation_id: "c-two",
        conversation_name: "design",
        conversation_charter: "We design the signup flow together; keep answers short.",
        text: "Any news?",
      }),
    ],
    [
      "bob",
      makeDelivery({
        conversation_id: "c-three",
        conversation_type: "dm",
        message_metadata: { quote: { kind: "briefing", ref: "b-7", snippet: "Ship on Friday" } },
        text: "Is this still true?",
      }),
    ],
  ] as const;
  const firstRequests: PromptCacheLedgerEntry[] = [];
  const headers: string[] = [];

  beforeAll(async () => {
    dir = await makeTempDir();
    const home = join(dir, "home");
    await mkdir(join(home, "tmp"), { recursive: true });
    // One minute between sessions on the stand-in's clock, whatever the machine's speed.
    api = await startFakeMessagesApi({ reply: { text: "Done." }, clock: () => now });
    td = await startTestDaemon({
      dataDir: dir,
      config: { claudePath: REAL_CLAUDE_PATH ?? "", concurrency: 1, turnTimeoutMs: 120_000 },
      childBaseEnv: realClaudeEnv({ baseUrl: api.url, home, extra: { TMPDIR: join(home, "tmp") } }),
      killGraceMs: 2000,
    });
    await td.api.registerAgent("alice", join(dir, "ws-alice"));
    await td.api.registerAgent("bob", join(dir, "ws-bob"));
    for (const [agent, delivery] of deliveries) {
      now += 60_000;
      const before = api.cacheLedger().length;
      const ack = await td.api.deliver(agent, delivery);
      const [done] = await td.api.settled([ack.body.delivery.id]);
      expect(done?.state, JSON.stringify(done)).toBe("completed");
      const entry = api.cacheLedger()[before];
      if (entry === undefined) throw new Error(`no model request for ${String(delivery["id"])}`);
      firstRequests.push(entry);
      const request = api.requests[entry.requestIndex];
      headers.push(request === undefined ? "" : (systemBlocks(request)[0]?.text ?? ""));
    }
  });

  afterAll(async () => {
    await td.stop();
    await api.close();
    await removeDir(dir);
  });

  const figures = (): string =>
    firstRequests
      .map((e, i) => `  session ${i + 1} (${deliveries[i]?.[0] ?? "?"}): ${ledgerLine(e)}`)
      .join("\n");

  it("opens every session with the same billing header", () => {
    console.info(`prompt-cache figures (tokens), first request of each session:\n${figures()}`);
    expect(new Set(headers).size, `${headers.join("\n")}\n${figures()}`).toBe(1);
  });

  it("lets a new conversation of the same agent and another agent's first session read tools + system", () => {
    const systemEnd = toolsAndSystemTokens(firstRequests[0]);
    expect(systemEnd, figures()).toBeDefined();
    const shared = systemEnd ?? Number.POSITIVE_INFINITY;
    for (const later of firstRequests.slice(1)) {
      expect(later.read, `read ≥ ${shared} (tools + system)\n${figures()}`).toBeGreaterThanOrEqual(
        shared,
      );
    }
  });
});
