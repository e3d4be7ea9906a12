import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildClaudeArgs } from "./claude-args.ts";
import { changedInstructionReminder } from "./instruction-reminder.ts";
import { startFakeMessagesApi, type FakeMessagesApi } from "./testing/fake-messages-api.ts";
import { runOneTurn } from "./testing/one-turn.ts";
import { estimateBlockTokens, type PromptCacheLedgerEntry } from "./testing/prompt-cache.ts";
import {
  REAL_CLAUDE_PATH,
  REAL_CLAUDE_VERSION,
  realClaudeEnv,
  realClaudeSuiteCanRun,
} from "./testing/real-claude.ts";
import { systemBlocks } from "./testing/wire.ts";
import type { ClaudeTurnResult, ClaudeTurnSuccess } from "./turn-result.ts";
import { WarmClaudeProcess } from "./warm-process.ts";

const canRun = realClaudeSuiteCanRun("claude-cli prompt-cache gate");

// The regression gate of issue 28: the pinned CLI against the caching stand-in. A CLI bump
// that moves a breakpoint, puts a changing byte before one or replays history differently
// fails here with the figures of every request. Allowances: README, "Prompt-cache gate".

/**
 * Tokens a warm or resumed turn may write beyond the new prompt and the previous answer:
 * 2.1.330 and 2.1.337 write exactly those (0 extra); the allowance leaves room for a few bytes of
 * framing a patch release may add, and is far below any re-write of the prefix (≥ 8 000).
 */
const TURN_ALLOWANCE = 64;
/**
 * The same for a turn after a writer change, beyond the changed file inside the CLI's
 * reminder (`changedInstructionReminder`, the wrapper included).
 */
const WRITER_CHANGE_ALLOWANCE = 64;

const CLAUDE_MD = "# Project Gate\n\nRules of the house.\n\n@.talkide/active-writer.md\n";
const WRITER_ANNA = "# Aktuálně píše\n\nAnna Nováková (anna@example.test).\n";
const WRITER_BORIS = "# Aktuálně píše\n\nBoris Dvořák (boris@example.test), briefing follows.\n";
const STANDING = "You are Mara, the team's coding agent. Answer in the team's language.";
const REPLY = "Noted, I will look at it.";

/**
 * The billing header's three hex digits as the pinned CLI derives them (README, "Why a new
 * session's prefix differs"; the same salt and characters from 2.1.330 to 2.1.337, only the
 * version in the hashed text changes).
 */
function billingSuffix(firstPrompt: string): string {
  const picked = [4, 7, 20].map((index) => firstPrompt[index] ?? "0").join("");
  return createHash("sha256")
    .update(`59cf53e54c78${picked}${REAL_CLAUDE_VERSION}`)
    .digest("hex")
    .slice(0, 3);
}

/** One line per request: what the stand-in accounted, and the bound a check applied. */
function figures(ledger: readonly PromptCacheLedgerEntry[], bounds: Map<number, string>): string {
  const rows = ledger.map(
    (e) =>
      `  #${e.requestIndex}: prompt ${e.promptTokens}, uncached ${e.uncached}, write ${e.write5m + e.write1h}, read ${e.read}, ideal new ${e.idealNew}` +
      (bounds.has(e.requestIndex) ? `  [${bounds.get(e.requestIndex)}]` : ""),
  );
  return `prompt-cache figures (tokens):\n${rows.join("\n")}`;
}

describe.skipIf(!canRun)("prompt-cache gate: the pinned CLI against the caching stand-in", () => {
  const claudePath = REAL_CLAUDE_PATH ?? "";
  let api: FakeMessagesApi;
  let root: string;
  let project: string;
  let otherProject: string;
  let env: Record<string, string>;
  let now = 0;
  const bounds = new Map<number, string>();
  const report = (): string => figures(api.cacheLedger(), bounds);

  beforeAll(async () => {
    // The stand-in's clock moves one minute per turn, whatever the machine's speed.
    api = await startFakeMessagesApi({ reply: { text: REPLY }, clock: () => now });
    root = await mkdtemp(join(tmpdir(), "claude-cache-gate-"));
    project = join(root, "project");
    otherProject = join(root, "other-project");
    for (const dir of [project, otherProject]) {
      await mkdir(join(dir, ".talkide"), { recursive: true });
      await writeFile(join(dir, "CLAUDE.md"), CLAUDE_MD);
      await writeFile(join(dir, ".talkide", "active-writer.md"), WRITER_ANNA);
    }
    env = realClaudeEnv({ baseUrl: api.url, home: join(root, "home") });
  });
  afterAll(async () => {
    await api.close();
    await rm(root, { recursive: true, force: true });
  });

  const args = (resumeSessionId?: string) =>
    buildClaudeArgs({
      resumeSessionId,
      appendSystemPrompt: STANDING,
      extraArgs: ["--exclude-dynamic-system-prompt-sections"],
    });

  function succeeded(result: ClaudeTurnResult): ClaudeTurnSuccess {
    if (!result.ok) throw new Error(`turn failed: ${JSON.stringify(result)}\n${report()}`);
    return result;
  }

  /** Runs `step`, which must make exactly one model request, and returns its ledger entry. */
  async function oneRequest(step: () => Promise<unknown>): Promise<PromptCacheLedgerEntry> {
    now += 60_000;
    const before = api.cacheLedger().length;
    await step();
    const added = api.cacheLedger().slice(before);
    expect(added, report()).toHaveLength(1);
    return added[0] ?? expect.unreachable();
  }

  function coldTurn(cwd: string, prompt: string, resumeSessionId?: string) {
    return runOneTurn({
      claudePath,
      cwd,
      env,
      prompt,
      timeoutMs: 120_000,
      resumeSessionId,
      appendSystemPrompt: STANDING,
      extraArgs: ["--exclude-dynamic-system-prompt-sections"],
    });
  }

  /** A later turn of a session writes only its new content, and reads the earlier request whole. */
  function expectIncremental(
    entry: PromptCacheLedgerEntry,
    previous: PromptCacheLedgerEntry,
    newContent: number,
    allowance: number,
    what: string,
  ): void {
    const bound = newContent + allowance;
    bounds.set(
      entry.requestIndex,
      `${what}: write ≤ ${newContent} new + ${allowance}; read ≥ ${previous.promptTokens}`,
    );
    expect(
      entry.write5m + entry.write1h,
      `${what} wrote too much\n${report()}`,
    ).toBeLessThanOrEqual(bound);
    expect(entry.uncached, `${what} left tokens uncached\n${report()}`).toBe(0);
    expect(
      entry.read,
      `${what} did not read the earlier prefix\n${report()}`,
    ).toBeGreaterThanOrEqual(previous.promptTokens);
  }

  const promptTokens = (prompt: string) => estimateBlockTokens(prompt) + estimateBlockTokens(REPLY);

  let sessionId = "";
  let first: PromptCacheLedgerEntry;
  let systemPrefix = 0;

  it("a fresh session writes its whole prompt once", async () => {
    const prompt = "Hello Mara, please review the login page.";
    first = await oneRequest(async () => {
      sessionId = succeeded(await coldTurn(project, prompt)).sessionId;
    });
    bounds.set(first.requestIndex, "fresh session");
    expect(first.read, report()).toBe(0);
    expect(first.uncached, report()).toBe(0);
    // tools, then system: the last system breakpoint ends the part every session shares.
    const systemEnd = first.breakpoints.filter((b) => b.section === "system").at(-1);
    expect(systemEnd, report()).toBeDefined();
    systemPrefix = systemEnd?.prefixTokens ?? Number.POSITIVE_INFINITY;
  });

  it("a warm turn and a resumed turn of unchanged state write only what is new", async () => {
    let previous = first;
    // Warm: the session's next turn in a process that stays up (as the apps' pool keeps it).
    const warm = await WarmClaudeProcess.start({
      claudePath,
      cwd: project,
      env,
      args: args(sessionId),
    });
    try {
      for (const prompt of ["Warm one: add a test.", "Warm two: and run it."]) {
        const entry = await oneRequest(async () => {
          succeeded(await warm.runTurn({ prompt, timeoutMs: 120_000 }));
        });
        expectIncremental(entry, previous, promptTokens(prompt), TURN_ALLOWANCE, "warm turn");
        previous = entry;
      }
    } finally {
      await warm.end();
    }
    // Resumed: a fresh process with --resume (a restart), nothing changed.
    const prompt = "After a restart: where were we?";
    const resumed = await oneRequest(async () => {
      succeeded(await coldTurn(project, prompt, sessionId));
    });
    expectIncremental(resumed, previous, promptTokens(prompt), TURN_ALLOWANCE, "resumed turn");
    first = resumed;
  });

  it("a turn after a writer change writes the changed file in the CLI's reminder and nothing more", async () => {
    await writeFile(join(project, ".talkide", "active-writer.md"), WRITER_BORIS);
    const reminder =
      changedInstructionReminder([
        { absolutePath: join(project, ".talkide", "active-writer.md"), content: WRITER_BORIS },
      ]) ?? "";
    const prompt = "Boris here: continue.";
    const entry = await oneRequest(async () => {
      succeeded(await coldTurn(project, prompt, sessionId));
    });
    expectIncremental(
      entry,
      first,
      promptTokens(prompt) + estimateBlockTokens(reminder),
      WRITER_CHANGE_ALLOWANCE,
      "writer change",
    );
    await writeFile(join(project, ".talkide", "active-writer.md"), WRITER_ANNA);
  });

  it("derives the billing header's digits from the version and the first prompt's characters 4, 7 and 20", () => {
    const requests = api.messageRequests();
    const firstPrompt = "Hello Mara, please review the login page.";
    for (const request of requests) {
      expect(systemBlocks(request)[0]?.text).toBe(
        `x-anthropic-billing-header: cc_version=${REAL_CLAUDE_VERSION}.${billingSuffix(firstPrompt)}; cc_entrypoint=sdk-cli;`,
      );
    }
  });

  it("a new session whose first prompt differs at those characters reads nothing of the shared prefix", async () => {
    const prompt = "Good morning, a new topic today.";
    expect(billingSuffix(prompt)).not.toBe(
      billingSuffix("Hello Mara, please review the login page."),
    );
    const entry = await oneRequest(async () => {
      succeeded(await coldTurn(project, prompt));
    });
    bounds.set(entry.requestIndex, "new session, other header: read 0 (the CLI's layout)");
    expect(entry.read, report()).toBe(0);
  });

  it("a new session of the project and the first of another project read tools + system when the header agrees", async () => {
    // Same characters at 4, 7 and 20 as the first session's first prompt, other words elsewhere.
    const same = "Hello Mara, please review the login page.";
    const variant = `${same.slice(0, 21)}check the signup form instead.`;
    expect(billingSuffix(variant)).toBe(billingSuffix(same));
    for (const [cwd, what] of [
      [project, "new session, same project"],
      [otherProject, "first session, other project"],
    ] as const) {
      const entry = await oneRequest(async () => {
        succeeded(await coldTurn(cwd, variant));
      });
      bounds.set(entry.requestIndex, `${what}: read ≥ ${systemPrefix} (tools + system)`);
      expect(entry.read, `${what}\n${report()}`).toBeGreaterThanOrEqual(systemPrefix);
    }
    console.info(report());
  });
});
