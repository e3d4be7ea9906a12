import { startFakeMessagesApi, type FakeMessagesApi } from "@talkide/claude-cli/testing";
import type { ProjectUsage, Turn } from "@talkide/be-api";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  axeViolationsIn,
  collectConsoleErrors,
  launchBrowser,
  seriousAxeViolations,
  type Browser,
} from "../test-support/browser.ts";
import { describeInChromium } from "../test-support/console-suite.ts";
import {
  api,
  defaultProject,
  startHarness,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";
import { REAL_CLAUDE } from "../test-support/wire-harness.ts";

const REPLY = "Rozumím, začneme košíkem.";
// How long the real claude CLI may take for a turn on a busy machine.
const TURN_TIMEOUT_MS = 240_000;

/** An amount as the console shows it: cents from $1 up, up to four decimals below. */
function usd(amount: number): string {
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  return `$${amount.toFixed(4).replace(/(\.\d\d\d??)0+$/, "$1")}`;
}

const count = (tokens: number): string => tokens.toLocaleString("en-US");

/**
 * Issue 51 in real Chromium: the real backend runs the real pinned Claude Code CLI through its
 * LLM gateway against a local stand-in for the Messages API that reports cache usage as the
 * provider does. Each turn's card says what the turn cost (the API's exact figure) and what it
 * did with the prompt cache and why; the project's view says what the project and you spent
 * today and this month, beside the caps, and says a reached limit plainly.
 */
describeInChromium("what turns cost, in the web console", () => {
  let fake: FakeMessagesApi;
  let harness: Harness;
  let browser: Browser;
  let anna: TestUser;
  let projectId: number;
  let page: Page;
  let pageErrors: string[] = [];
  const started: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    fake = await startFakeMessagesApi({ reply: { text: REPLY } });
    started.push(() => fake.close());
    harness = await startHarness({
      env: { TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "", ANTHROPIC_BASE_URL: fake.url },
    });
    started.push(() => harness.close());
    anna = await harness.createUser({ email: "anna.cost@example.org", displayName: "Anna K" });
    const created = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    expect(created.status).toBe(201);
    projectId = created.body.project.id;
    browser = await launchBrowser();
    started.push(() => browser.close());
    page = await browser.newPage();
    pageErrors = collectConsoleErrors(page);
  });

  afterAll(async () => {
    for (const stop of started.reverse()) await stop();
  });

  const turnCard = (number: number) =>
    page.getByRole("list", { name: "Conversation" }).locator(`[data-turn-number="${number}"]`);

  async function send(text: string): Promise<void> {
    await page.getByLabel("Message to Mara").fill(text);
    await page.getByLabel("Message to Mara").press("Enter");
  }

  async function turnsOfApi(): Promise<Turn[]> {
    const listed = await api<{ turns: Turn[] }>(
      harness,
      anna.token,
      "GET",
      `/v1/projects/${projectId}/turns?limit=20`,
    );
    return [...listed.body.turns].reverse();
  }

  async function usageOfApi(): Promise<ProjectUsage> {
    const usage = await api<ProjectUsage>(
      harness,
      anna.token,
      "GET",
      `/v1/projects/${projectId}/usage`,
    );
    expect(usage.status).toBe(200);
    return usage.body;
  }

  /** Waits until the element says exactly `text` (the totals are read again after a turn). */
  async function says(testId: string, text: string): Promise<void> {
    await page.getByTestId(testId).filter({ hasText: text }).waitFor({ timeout: 30_000 });
    expect((await page.getByTestId(testId).textContent())?.trim()).toBe(text);
  }

  it("shows the project's totals before any turn: nothing spent, beside the caps", async () => {
    await page.goto(await harness.signInLink(anna.email));
    await page.getByRole("heading", { name: defaultProject.name, level: 2 }).waitFor();
    await says(
      "spending-project",
      "This project: $0.00 today of $50.00 daily limit · $0.00 this month of $500.00 monthly limit",
    );
    await says(
      "spending-you",
      "You: $0.00 today of $20.00 daily limit · $0.00 this month of $200.00 monthly limit",
    );
    // A real key (the stand-in's): no demo label.
    expect(await page.getByTestId("spending-demo").count()).toBe(0);
  });

  it("shows each turn's exact cost, why the cache was written, and totals that add up", async () => {
    await send("Ahoj Maro, kde začneme?");
    await page
      .locator('[data-turn-number="1"][data-status="succeeded"]')
      .waitFor({ timeout: TURN_TIMEOUT_MS });
    await send("A co routing?");
    await page
      .locator('[data-turn-number="2"][data-status="succeeded"]')
      .waitFor({ timeout: TURN_TIMEOUT_MS });

    const [first, second] = await turnsOfApi();
    if (first === undefined || second === undefined) throw new Error("two turns expected");
    for (const turn of [first, second]) {
      expect(turn.costUsd).toBeGreaterThan(0);
      expect(turn.usage).not.toBeNull();
    }
    const firstCost = first.costUsd ?? 0;
    const secondCost = second.costUsd ?? 0;
    // The conversation's total is the running sum of its turns: it never falls.
    expect(first.cumulativeCostUsd).toBeCloseTo(firstCost, 10);
    expect(second.cumulativeCostUsd).toBeCloseTo(firstCost + secondCost, 10);

    for (const [number, turn] of [
      [1, first],
      [2, second],
    ] as const) {
      const cost = turnCard(number).getByTestId("turn-cost");
      expect(await cost.textContent()).toBe(
        `This turn cost ${usd(turn.costUsd ?? 0)} · conversation so far ${usd(turn.cumulativeCostUsd ?? 0)}`,
      );
      // The figure behind the words is the API's own, exactly.
      expect(Number(await cost.getAttribute("data-cost-usd"))).toBe(turn.costUsd);
      expect(await cost.getAttribute("title")).toContain("This turn cost exactly $");
    }

    // The first turn started the conversation: the whole prompt went into the cache.
    expect(first.cacheMiss?.reason).toBe("new_session");
    expect(first.usage?.cacheCreationInputTokens).toBeGreaterThan(10_000);
    expect((await turnCard(1).getByTestId("turn-cache").textContent())?.trim()).toBe(
      `Wrote ${count(first.usage?.cacheCreationInputTokens ?? 0)} tokens to the cache: a new conversation`,
    );
    // The second only appended: it read the prompt back and wrote its new message.
    expect(second.cacheMiss?.reason).toBe("prefix_kept");
    expect(second.usage?.cacheReadInputTokens).toBeGreaterThan(10_000);
    expect((await turnCard(2).getByTestId("turn-cache").textContent())?.trim()).toBe(
      `Read ${count(second.usage?.cacheReadInputTokens ?? 0)} tokens from the cache, wrote ${count(second.usage?.cacheCreationInputTokens ?? 0)} (only the new message)`,
    );
    // No code or internal figure on the card: those are in "What Mara sees".
    expect(await turnCard(2).textContent()).not.toMatch(/prefix_kept|new_session|cache write/);

    // The project's totals are the sum of its turns, read again when the second ended.
    const sum = firstCost + secondCost;
    const usage = await usageOfApi();
    expect(usage.project.today.usd).toBeCloseTo(sum, 10);
    expect(usage.project.month.usd).toBeCloseTo(sum, 10);
    expect(usage.you.today.usd).toBeCloseTo(sum, 10);
    await says(
      "spending-project",
      `This project: ${usd(sum)} today of $50.00 daily limit · ${usd(sum)} this month of $500.00 monthly limit`,
    );
    await says(
      "spending-you",
      `You: ${usd(sum)} today of $20.00 daily limit · ${usd(sum)} this month of $200.00 monthly limit`,
    );
    expect(await page.getByTestId("spending-project").getAttribute("title")).toContain(
      "today since ",
    );

    // "What Mara sees" has the exact figures and the reason's code.
    await page.getByRole("tab", { name: "What Mara sees" }).click();
    const rows = page.getByRole("table", { name: "Context changes per turn" }).getByRole("row");
    const newest = await rows.nth(1).getByRole("cell").allTextContents();
    expect(newest.at(-2)).toBe("only the new message (prefix_kept)");
    expect(newest.at(-1)).toBe(
      `$${(second.costUsd ?? 0).toFixed(10).replace(/(\.\d\d\d*?)0+$/, "$1")}`,
    );
    // The totals stay in sight in every view.
    await page.getByTestId("spending-project").waitFor();
    await page.getByRole("tab", { name: "Chat" }).click();
    expect(await axeViolationsIn(page, ".chat")).toEqual([]);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it("keeps the totals and the turn cards readable on a phone", async () => {
    const phone = await browser.newPage();
    const phoneErrors = collectConsoleErrors(phone);
    await phone.setViewportSize({ width: 375, height: 812 });
    await phone.goto(`${harness.url}/projects/${projectId}`);
    await phone.locator('[data-turn-number="2"]').getByTestId("turn-cache").waitFor();
    const totals = phone.getByTestId("spending-project");
    await totals.waitFor();
    const box = await totals.boundingBox();
    expect(box !== null && box.x >= 0 && box.x + box.width <= 375).toBe(true);
    // Nothing scrolls sideways.
    expect(
      await phone.evaluate<number>(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      ),
    ).toBeLessThanOrEqual(0);
    expect(await seriousAxeViolations(phone)).toEqual([]);
    await phone.close();
    expect(phoneErrors.filter((line) => line.startsWith("page error"))).toEqual([]);
  });

  it("says plainly which limit stopped a turn and who can raise it, and offers to retry it", async () => {
    // The operator lowers the project's daily cap under what it spent already.
    await harness.restart({ TALKIDE_LIMIT_PROJECT_DAY_USD: "0.01" });
    const [first, second] = await turnsOfApi();
    const sum = (first?.costUsd ?? 0) + (second?.costUsd ?? 0);
    // The page's stream reconnects by itself, and the totals are read again.
    await says(
      "spending-project",
      `This project: ${usd(sum)} today, $0.01 daily limit reached · ${usd(sum)} this month of $500.00 monthly limit`,
    );
    await send("Pokračuj, prosím.");
    const card = turnCard(3);
    await page
      .locator('[data-turn-number="3"][data-status="failed"]')
      .waitFor({ timeout: TURN_TIMEOUT_MS });
    const third = (await turnsOfApi())[2];
    expect(third?.error?.code).toBe("usage_limit_reached");
    const message = third?.error?.message ?? "";
    expect(message).toContain("TALKIDE_LIMIT_PROJECT_DAY_USD");
    // The backend's words, as they are: the limit, when it resets, who can raise it.
    expect((await card.getByTestId("turn-failure").textContent())?.trim()).toBe(message);
    // Nothing reached the model, so the turn cost nothing (it joined no conversation when it
    // was refused before its process started, so there is no running total to give).
    expect(third?.costUsd).toBe(0);
    const total = third?.cumulativeCostUsd ?? null;
    expect(await card.getByTestId("turn-cost").textContent()).toBe(
      `This turn cost nothing${total === null ? "" : ` · conversation so far ${usd(total)}`}`,
    );
    await card.getByRole("button", { name: "Retry turn 3" }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it("throws no script error in the page", () => {
    // Requests refused while the service restarted are the restart the walk asked for.
    expect(pageErrors.filter((line) => line.startsWith("page error"))).toEqual([]);
  });
});
