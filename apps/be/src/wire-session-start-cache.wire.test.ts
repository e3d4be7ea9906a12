import {
  ledgerLine,
  systemBlocks,
  toolsAndSystemTokens,
  type PromptCacheLedgerEntry,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realClaudeCanRun, startWireBench, type WireBench } from "./test-support/wire-harness.ts";
import { pinToEarlierRelease } from "./test-support/engine-sessions.ts";

const canRun = realClaudeCanRun("The backend's session-start cache gate");

/**
 * Issue 28's gate for what the backend decides: the pinned CLI derives the first system block
 * (`x-anthropic-billing-header: cc_version=<version>.<3 hex>`, before every cache breakpoint)
 * from characters 4, 7 and 20 of a session's first prompt. Every backend prompt starts with the
 * same line (spec/member-message.md), so a new session of a project (here: after an agent-file
 * change) and the first session of another project read the tools and the system prompt that
 * the project's first session wrote, from the caching stand-in. The three first messages
 * differ at characters 4, 7 and 20, as members' words do.
 */
describe.skipIf(!canRun)("the backend's new sessions, at the provider's prompt cache", () => {
  let bench: WireBench;
  const labels = [
    "project A, first session",
    "project A, new session after an agent-file change",
    "project B, first session",
  ];
  const firstRequests: PromptCacheLedgerEntry[] = [];
  const headers: string[] = [];

  const remember = (request: RecordedRequest): void => {
    const entry = bench.fake.cacheLedger().find((e) => e.requestIndex === request.index);
    if (entry === undefined) throw new Error(`no ledger entry for request ${request.index}`);
    firstRequests.push(entry);
    headers.push(systemBlocks(request)[0]?.text ?? "");
  };

  beforeAll(async () => {
    bench = await startWireBench("split");
    bench.fake.setReply({ text: "Rozumím." });
    const a = await bench.newProject();
    remember(await bench.turn(bench.anna, a.id, "Ahoj Maro, začneme košíkem.", "A first"));
    // A session started by an earlier release of Mara's agent file: the next turn ends it and
    // starts a new one (turns.test.ts checks the reset itself).
    await pinToEarlierRelease(bench.harness.service.database.db, a.id);
    remember(await bench.turn(bench.anna, a.id, "Zkontroluj prosím cenu s DPH.", "A new"));
    const b = await bench.newProject();
    remember(await bench.turn(bench.anna, b.id, "Dobrý den, chci e-shop.", "B first"));
  }, 300_000);

  afterAll(async () => {
    await bench.close();
  });

  const figures = (): string =>
    firstRequests.map((e, i) => `  ${labels[i] ?? "?"}: ${ledgerLine(e)}`).join("\n");

  it("opens every session with the same billing header", () => {
    console.info(`prompt-cache figures (tokens), first request of each session:\n${figures()}`);
    expect(firstRequests).toHaveLength(labels.length);
    expect(new Set(headers).size, `${headers.join("\n")}\n${figures()}`).toBe(1);
  });

  it("lets a project's new session and another project's first session read tools + system", () => {
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
