import { cacheReuse } from "@talkide/claude-cli";
import {
  estimateBlockTokens,
  startFakeMessagesApi,
  type FakeMessagesApi,
} from "@talkide/claude-cli/testing";
import type { ProjectUsage, Turn } from "@talkide/be-api";
import { DEFAULT_PRICES, priceOf, requestCostUsd } from "@talkide/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addMember,
  api,
  defaultProject,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "./test-support/harness.ts";
import { REAL_CLAUDE, realClaudeCanRun } from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be gateway usage wire suite");

const REPLY = "Rozumím, pokračujeme.";
const MINUTE = 60_000;

/** What the fake provider reported for a set of its requests, summed as a turn's usage. */
interface Reported {
  inputTokens: number;
  cacheCreation5mInputTokens: number;
  cacheCreation1hInputTokens: number;
  cacheReadInputTokens: number;
  outputTokens: number;
  /** In 1e-10 USD: each request's cost as the gateway stores it, summed exactly. */
  costUnits: number;
}

/**
 * Issue 51 with the pinned CLI against the caching stand-in: ten turns of one conversation, a
 * service restart after the fifth, writer changes at the sixth and eighth, and an hour's pause
 * before the tenth. Each turn's usage is exactly the sum of what the provider reported for that
 * turn's requests, its cost the gateway's price of them, the session's total the running sum
 * (it never falls, and is never unknown), and each turn says why its cache missed.
 */
describe.skipIf(!canRun)("at the wire: exact usage per turn through the gateway", () => {
  let now = Date.UTC(2026, 11, 7, 9, 0);
  let fake: FakeMessagesApi;
  let harness: Harness;
  let anna: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    fake = await startFakeMessagesApi({ reply: { text: REPLY }, clock: () => now });
    harness = await startHarness({
      env: { TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "", ANTHROPIC_BASE_URL: fake.url },
      gatewayClock: () => now,
    });
    anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
    bob = await harness.createUser({ email: "bob@example.com", displayName: "Bob" });
  });
  afterAll(async () => {
    await harness.close();
    await fake.close();
  });

  it("records every turn's usage, cost and cache miss exactly, across a restart and writer changes", async () => {
    const created = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    const projectId = created.body.project.id;
    await addMember(harness, anna.token, projectId, { email: bob.email, salutation: "Bob" });
    const price = priceOf(DEFAULT_PRICES, "claude-opus-5-5");
    const output = estimateBlockTokens(JSON.stringify([{ type: "text", text: REPLY }]));

    const plan: Array<{ who: TestUser; before?: () => Promise<void> }> = [
      { who: anna },
      { who: anna },
      { who: anna },
      { who: anna },
      { who: anna },
      { who: bob, before: () => harness.restart() },
      { who: bob },
      { who: anna },
      { who: anna },
      {
        who: anna,
        before: () => {
          now += 61 * MINUTE;
          return Promise.resolve();
        },
      },
    ];
    const reported: Reported[] = [];
    const turnIds: string[] = [];
    for (const [i, step] of plan.entries()) {
      await step.before?.();
      now += MINUTE;
      const before = fake.requests.length;
      const turn = await sendMessage(harness, step.who.token, projectId, `Zpráva ${i + 1}`);
      const done = terminalEvent(turn.events);
      expect(done.event, JSON.stringify(done.data)).toBe("turn.succeeded");
      turnIds.push(String(done.data.turnId));
      const indexes = new Set(
        fake.requests
          .slice(before)
          .filter((r) => r.path === "/v1/messages")
          .map((r) => r.index),
      );
      expect(indexes.size).toBeGreaterThan(0);
      const sum: Reported = {
        inputTokens: 0,
        cacheCreation5mInputTokens: 0,
        cacheCreation1hInputTokens: 0,
        cacheReadInputTokens: 0,
        outputTokens: 0,
        costUnits: 0,
      };
      for (const entry of fake.cacheLedger().filter((e) => indexes.has(e.requestIndex))) {
        sum.inputTokens += entry.uncached;
        sum.cacheCreation5mInputTokens += entry.write5m;
        sum.cacheCreation1hInputTokens += entry.write1h;
        sum.cacheReadInputTokens += entry.read;
        sum.outputTokens += output;
        const cost = requestCostUsd(price, {
          inputTokens: entry.uncached,
          cacheWrite5mTokens: entry.write5m,
          cacheWrite1hTokens: entry.write1h,
          cacheReadTokens: entry.read,
          outputTokens: output,
          webSearchRequests: 0,
          inferenceGeo: null,
        });
        sum.costUnits += Math.round(cost * 1e10);
      }
      reported.push(sum);
    }

    const listed = await api<{ turns: Turn[] }>(
      harness,
      anna.token,
      "GET",
      `/v1/projects/${projectId}/turns?limit=20`,
    );
    const turns = [...listed.body.turns].reverse();
    expect(turns.map((t) => t.id)).toEqual(turnIds);
    let sessionCost = 0;
    let sessionRead = 0;
    let sessionInput = 0;
    for (const [i, turn] of turns.entries()) {
      const { costUnits, ...tokens } = reported[i] ?? ({} as Reported);
      expect(turn.usage, `turn ${i + 1}`).toEqual({
        ...tokens,
        cacheCreationInputTokens:
          tokens.cacheCreation5mInputTokens + tokens.cacheCreation1hInputTokens,
      });
      expect(turn.costUsd, `turn ${i + 1}`).toBe(costUnits / 1e10);
      sessionCost += costUnits;
      sessionRead += tokens.cacheReadInputTokens;
      sessionInput +=
        tokens.inputTokens +
        tokens.cacheCreation5mInputTokens +
        tokens.cacheCreation1hInputTokens +
        tokens.cacheReadInputTokens;
      expect(turn.cumulativeCostUsd, `turn ${i + 1}`).toBeCloseTo(sessionCost / 1e10, 10);
      expect(turn.sessionCacheReuse, `turn ${i + 1}`).toBe(cacheReuse(sessionRead, sessionInput));
      expect(turn.demoModel).toBe(false);
    }
    // The CLI's 1-hour cache (TALKIDE_PROMPT_CACHE_TTL's default): its writes are 1-hour ones.
    expect(reported.every((r) => r.cacheCreation5mInputTokens === 0)).toBe(true);
    expect(reported[0]?.cacheCreation1hInputTokens).toBeGreaterThan(10_000);
    // The session's total never falls and is never unknown.
    const totals = turns.map((t) => t.cumulativeCostUsd ?? -1);
    expect(totals.every((total, i) => i === 0 || total >= (totals[i - 1] ?? 0))).toBe(true);

    // Why each turn's cache missed: a new session, then only appends (the restart resumes the
    // same history; a writer change appends the changed file in a reminder, and the turn's
    // phrase says why it wrote that: the sixth and the eighth), then the hour's pause.
    const kept = ["prefix_kept", null];
    const writerChanged = ["prefix_kept", "the active writer changed"];
    expect(turns.map((t) => [t.cacheMiss?.reason, t.cacheMiss?.phrase])).toEqual([
      ["new_session", "a new session started"],
      kept,
      kept,
      kept,
      kept,
      writerChanged,
      kept,
      writerChanged,
      kept,
      ["ttl_expired", "the cache expired after 62 min"],
    ]);
    expect(turns[9]?.cacheMiss).toMatchObject({ gapMs: 62 * MINUTE, ttlMs: 60 * MINUTE });
    // The hour's pause cost a rewrite: the tenth turn read nothing of the cache.
    expect(reported[9]?.cacheReadInputTokens).toBe(0);

    // The project's and each member's spend today and this month, exact to the turns'.
    const usage = await api<ProjectUsage>(
      harness,
      anna.token,
      "GET",
      `/v1/projects/${projectId}/usage`,
    );
    expect(usage.status).toBe(200);
    const allTokens = reported.reduce(
      (sum, r) =>
        sum +
        r.inputTokens +
        r.cacheCreation5mInputTokens +
        r.cacheCreation1hInputTokens +
        r.cacheReadInputTokens +
        r.outputTokens,
      0,
    );
    expect(usage.body.project.today).toMatchObject({ tokens: allTokens, limits: { usd: 50 } });
    expect(usage.body.project.today.usd).toBeCloseTo(sessionCost / 1e10, 10);
    expect(usage.body.project.month.usd).toBeCloseTo(sessionCost / 1e10, 10);
    const annasUnits = reported
      .filter((_, i) => plan[i]?.who === anna)
      .reduce((sum, r) => sum + r.costUnits, 0);
    expect(usage.body.you.today.usd).toBeCloseTo(annasUnits / 1e10, 10);
    expect(usage.body.you.today.limits).toEqual({ usd: 20, tokens: null });
    expect(usage.body.demoModel).toBe(false);
  }, 600_000);
});
