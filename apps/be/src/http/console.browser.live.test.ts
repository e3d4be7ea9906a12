import {
  startFakeMessagesApi,
  type FakeMessagesApi,
  type FakeReply,
} from "@talkide/claude-cli/testing";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  axeViolationsIn,
  collectConsoleErrors,
  launchBrowser,
  seriousAxeViolations,
  startOutageProxy,
  type Browser,
  type ServiceOutage,
} from "../test-support/browser.ts";
import { describeInChromium } from "../test-support/console-suite.ts";
import {
  addMember,
  api,
  defaultProject,
  startHarness,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";
import { REAL_CLAUDE } from "../test-support/wire-harness.ts";

const REPLY = "Začneme košíkem:\n\n1. **model** položky\n2. `CartView.vue`";
// How long the real claude CLI may take for a turn on a busy machine.
const TURN_TIMEOUT_MS = 240_000;
// The promise: every open tab shows a change within a second; the test allows two.
const LIVE_MS = 2_000;

// An answer a hostile message could make Mara repeat: each line tries to run script in the
// reader's page, and sets a flag on window if it ever does.
const HOSTILE_REPLY = [
  "Tady je odpověď:",
  "",
  "<img src=x onerror=\"window.__pwned = 'img'\">",
  "",
  "<script>window.__pwned = 'script'</script>",
  "",
  "[klikni](javascript:window.__pwned='link')",
  "",
  "<a href=\"javascript:window.__pwned='raw-a'\">raw</a>",
  "",
  "<div onmouseover=\"window.__pwned='div'\">najeď</div>",
  "",
  "[dokumentace](https://vuejs.org/guide/)",
  "",
  "```js",
  "console.log('<b>copy me</b>');",
  "```",
].join("\n");

/**
 * One live conversation (issue 52) in real Chromium: Anna (owner) and Bob (member), each in a
 * browser context of their own, both on the project's chat. The real backend runs the real
 * pinned Claude Code CLI against a local stand-in for the Messages API whose answer the test
 * chooses (slow, hostile). The browsers reach the service through a proxy the test can cut,
 * as if the service went away and came back.
 */
describeInChromium("the live conversation in the web console", () => {
  let fake: FakeMessagesApi;
  let harness: Harness;
  let outage: ServiceOutage;
  let browser: Browser;
  let anna: TestUser;
  let bob: TestUser;
  let projectId: number;
  let annaPage: Page;
  let bobContext: BrowserContext;
  let bobPage: Page;
  // The model's next answer, and how long it waits before giving it.
  let reply: FakeReply = { text: REPLY };
  let delayMs = 0;
  const chosenReply = async (): Promise<FakeReply> => {
    const answer = reply;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return answer;
  };
  const errors = new Map<string, string[]>();
  const started: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    fake = await startFakeMessagesApi({ reply: chosenReply });
    started.push(() => fake.close());
    harness = await startHarness({
      env: { TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "", ANTHROPIC_BASE_URL: fake.url },
    });
    started.push(() => harness.close());
    outage = await startOutageProxy(harness.url);
    started.push(() => outage.close());
    anna = await harness.createUser({ email: "anna.live@example.org", displayName: "Anna K" });
    bob = await harness.createUser({ email: "bob.live@example.org", displayName: "Bob N" });
    const created = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    expect(created.status).toBe(201);
    projectId = created.body.project.id;
    const added = await addMember(harness, anna.token, projectId, {
      email: bob.email,
      salutation: "Bob",
    });
    expect(added.status).toBe(201);
    browser = await launchBrowser();
    started.push(() => browser.close());
    annaPage = await watchedPage(browser.context, "anna");
    bobContext = await browser.newContext();
    bobPage = await watchedPage(bobContext, "bob");
  });

  afterAll(async () => {
    for (const stop of started.reverse()) await stop();
  });

  async function watchedPage(context: BrowserContext, name: string): Promise<Page> {
    const page = await context.newPage();
    errors.set(name, collectConsoleErrors(page));
    return page;
  }

  /** A sign-in link of the harness, pointed at the proxy the browsers use. */
  async function signIn(page: Page, user: TestUser): Promise<void> {
    const link = (await harness.signInLink(user.email)).replace(harness.url, outage.url);
    await page.goto(link);
    await page.getByText("Signed in as").waitFor();
  }

  const chat = (page: Page) => page.getByRole("list", { name: "Conversation" });
  const turnCard = (page: Page, number: number) =>
    chat(page).locator(`[data-turn-number="${number}"]`);

  /** Sends a message from a page's composer with the keyboard (Enter sends). */
  async function send(page: Page, text: string): Promise<void> {
    await page.getByLabel("Message to Mara").fill(text);
    await page.getByLabel("Message to Mara").press("Enter");
  }

  it("opens the project at its own address in both tabs, with Mara's greeting on top", async () => {
    await signIn(annaPage, anna);
    await signIn(bobPage, bob);
    for (const [page, salutation] of [
      [annaPage, "Anna"],
      [bobPage, "Bob"],
    ] as const) {
      await page.getByRole("heading", { name: defaultProject.name, level: 2 }).waitFor();
      await page.waitForURL(`${outage.url}/projects/${projectId}`);
      const greeting = page.getByTestId("greeting");
      expect(await greeting.textContent()).toContain(`Mara: Ahoj ${salutation}!`);
      await greeting.getByText("A greeting from the console").waitFor();
      await page.getByTestId("empty-chat").waitFor();
    }
  });

  it("shows Bob's message in Anna's tab within 2 s, and Mara's answer to both as it comes", async () => {
    await send(bobPage, "Ahoj Maro, kde začneme?");
    const sentAt = Date.now();
    const seen = turnCard(annaPage, 1);
    await seen.getByText("Ahoj Maro, kde začneme?").waitFor({ timeout: LIVE_MS });
    expect(Date.now() - sentAt).toBeLessThan(LIVE_MS);
    // Who wrote it and when, beside the message.
    expect(await seen.getByTestId("turn-author").textContent()).toBe("Bob");
    expect(await seen.locator("time").getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT/);

    await turnCard(bobPage, 1).getByTestId("reply").getByText("model").waitFor({
      timeout: TURN_TIMEOUT_MS,
    });
    const answeredAt = Date.now();
    const reply = seen.getByTestId("reply");
    await reply.locator("strong", { hasText: "model" }).waitFor({ timeout: LIVE_MS });
    expect(Date.now() - answeredAt).toBeLessThan(LIVE_MS);
    // Formatted: a numbered list, bold, inline code.
    expect(await reply.locator("ol > li").count()).toBe(2);
    await reply.locator("code", { hasText: "CartView.vue" }).waitFor();
    // The card in words: how long the answer took, its cost, and what it did with the cache.
    await seen.getByText(/^Answered in \d+(\.\d)? s\.$|^Answered in \d+ min \d+ s\.$/).waitFor();
    expect(await seen.getByTestId("turn-cost").textContent()).toMatch(
      /^This turn cost \$\d+\.\d{2,4} · conversation so far \$\d+\.\d{2,4}$/,
    );
    expect(await seen.textContent()).not.toMatch(/cache write|reuse \d|new_session|code /);
    expect((await annaPage.getByTestId("working").textContent())?.trim()).toBe("");
  });

  it("streams the answer block by block: Anna reads Mara's first words while she still works", async () => {
    // The model's first answer is a text block and a tool call; its answer to the tool's
    // result (the next request) comes seconds later. The first block reaches every tab first.
    const first = "Nejdřív se podívám do projektu.";
    const last = "Hotovo: projekt jsem prošla.";
    const hasToolResult = (body: unknown): boolean =>
      JSON.stringify((body as { messages?: unknown[] } | null)?.messages?.at(-1) ?? null).includes(
        '"tool_result"',
      );
    fake.setReply(async (request) => {
      if (!hasToolResult(request.body)) {
        return {
          content: [
            { type: "text", text: first },
            {
              type: "tool_use",
              id: "toolu_live_1",
              name: "Read",
              input: { file_path: "CLAUDE.md" },
            },
          ],
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      return { text: last };
    });
    try {
      await send(bobPage, "Projdi projekt.");
      const card = turnCard(annaPage, 2);
      await card.getByTestId("reply").getByText(first).waitFor({ timeout: TURN_TIMEOUT_MS });
      // Still running: the rest of the answer is not there yet.
      expect(await card.getAttribute("data-status")).toBe("running");
      expect(await card.getByText(last).count()).toBe(0);
      await card.getByTestId("reply").getByText(last).waitFor({ timeout: TURN_TIMEOUT_MS });
      await chat(annaPage)
        .locator('[data-turn-number="2"][data-status="succeeded"]')
        .waitFor({ timeout: LIVE_MS * 5 });
    } finally {
      fake.setReply(chosenReply);
    }
  });

  it("lets Anna stop Bob's slow turn: both tabs show it stopped; Bob retries it in one click", async () => {
    delayMs = 120_000;
    await send(bobPage, "Napiš mi celý e-shop.");
    const annaCard = turnCard(annaPage, 3);
    // While it runs, every tab says whom Mara works for.
    await annaPage
      .getByTestId("working")
      .getByText("Mara is working for Bob…")
      .waitFor({ timeout: TURN_TIMEOUT_MS });
    await bobPage.getByTestId("working").getByText("Mara is working for Bob…").waitFor();
    await annaCard.getByRole("button", { name: "Stop" }).click();
    for (const page of [annaPage, bobPage]) {
      const card = turnCard(page, 3);
      await chat(page)
        .locator('[data-turn-number="3"][data-status="stopped"]')
        .waitFor({ timeout: 30_000 });
      await card.getByText(/^Stopped by Anna( after .+)?\.$/).waitFor();
      await card.getByRole("button", { name: "Retry" }).waitFor();
    }
    expect((await annaPage.getByTestId("working").textContent())?.trim()).toBe("");

    delayMs = 0;
    await turnCard(bobPage, 3).getByRole("button", { name: "Retry" }).click();
    // A new turn with the same message, written by the one who retried.
    for (const page of [bobPage, annaPage]) {
      const retried = turnCard(page, 4);
      await retried.getByText("Napiš mi celý e-shop.").waitFor({ timeout: LIVE_MS * 5 });
      expect(await retried.getByTestId("turn-author").textContent()).toBe("Bob");
      await retried.getByTestId("reply").waitFor({ timeout: TURN_TIMEOUT_MS });
    }
  });

  it("shows a hostile Markdown answer as text: no script of it runs, no unsafe element or link", async () => {
    reply = { text: HOSTILE_REPLY };
    try {
      await send(annaPage, "Zopakuj ten kód.");
      for (const page of [annaPage, bobPage]) {
        const card = turnCard(page, 5);
        await card.getByTestId("reply").getByText("Tady je odpověď:").waitFor({
          timeout: TURN_TIMEOUT_MS,
        });
        // The answer's HTML is shown as the text it is.
        await card.getByText("<script>window.__pwned = 'script'</script>").waitFor();
        const answer = card.getByTestId("reply");
        await answer.getByText("najeď").hover();
        expect(await page.evaluate("window.__pwned ?? null")).toBeNull();
        expect(
          await chat(page).locator("script, img, iframe, [onerror], [onmouseover]").count(),
        ).toBe(0);
        const links = await answer.locator("a[href]").all();
        const hrefs = await Promise.all(
          links.map(async (link) =>
            Promise.all(["href", "target", "rel"].map((name) => link.getAttribute(name))),
          ),
        );
        expect(hrefs).toEqual([
          ["https://vuejs.org/guide/", "_blank", "noopener noreferrer nofollow"],
        ]);
        // The refused link stays text; clicking it does nothing.
        await answer.getByText("klikni").click();
        expect(await page.evaluate("window.__pwned ?? null")).toBeNull();
      }
      // A code block has a Copy button that copies the code.
      await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], {
        origin: outage.url,
      });
      const copy = turnCard(annaPage, 5).getByRole("button", { name: "Copy" });
      await copy.click();
      await turnCard(annaPage, 5).getByRole("button", { name: "Copied" }).waitFor();
      expect(await annaPage.evaluate("navigator.clipboard.readText()")).toBe(
        "console.log('<b>copy me</b>');\n",
      );
    } finally {
      reply = { text: REPLY };
    }
  });

  it("keeps the project across a reload, and Back returns to the project before", async () => {
    const other = await api<{ project: { id: number } }>(
      harness,
      anna.token,
      "POST",
      "/v1/projects",
      {
        ...defaultProject,
        name: "Druhý projekt",
      },
    );
    expect(other.status).toBe(201);
    const otherId = other.body.project.id;
    await annaPage.reload();
    await annaPage.getByRole("heading", { name: defaultProject.name, level: 2 }).waitFor();
    expect(annaPage.url()).toBe(`${outage.url}/projects/${projectId}`);
    await turnCard(annaPage, 5).waitFor();

    await annaPage.getByRole("link", { name: /Druhý projekt/ }).click();
    await annaPage.getByRole("heading", { name: "Druhý projekt", level: 2 }).waitFor();
    expect(annaPage.url()).toBe(`${outage.url}/projects/${otherId}`);
    await annaPage.goBack();
    await annaPage.getByRole("heading", { name: defaultProject.name, level: 2 }).waitFor();
    expect(annaPage.url()).toBe(`${outage.url}/projects/${projectId}`);

    // A shared link opens that project in another browser too.
    const shared = await bobContext.newPage();
    await shared.goto(`${outage.url}/projects/${projectId}`);
    await shared.getByRole("heading", { name: defaultProject.name, level: 2 }).waitFor();
    await turnCard(shared, 5).waitFor();
    await shared.close();
  });

  it("says Reconnecting… while the service is away, keeps the conversation, and catches up after", async () => {
    await outage.stop();
    for (const page of [annaPage, bobPage]) {
      await page.getByTestId("reconnecting").waitFor({ timeout: 15_000 });
      // The last known conversation stays; never "No messages yet".
      await turnCard(page, 5).waitFor();
      expect(await page.getByTestId("empty-chat").count()).toBe(0);
    }
    // Meanwhile Anna writes from elsewhere (the API itself, not through the cut proxy).
    const sent = await api(harness, anna.token, "POST", `/v1/projects/${projectId}/messages`, {
      text: "Zpráva během výpadku.",
    });
    expect(sent.status).toBe(202);
    await outage.start();
    for (const page of [annaPage, bobPage]) {
      await page.getByTestId("reconnecting").waitFor({ state: "detached", timeout: 30_000 });
      const caughtUp = turnCard(page, 6);
      await caughtUp.getByText("Zpráva během výpadku.").waitFor({ timeout: LIVE_MS * 5 });
      await caughtUp.getByTestId("reply").waitFor({ timeout: TURN_TIMEOUT_MS });
      expect(await page.locator("body").textContent()).not.toContain("Failed to fetch");
    }
  });

  it("reconnects when the service is stopped and started again, and shows every message sent meanwhile", async () => {
    // The real thing: the service closes (its streams end) and a new one starts on the same
    // data directory and port; the browsers' streams reconnect by themselves.
    await harness.restart();
    const sent = await api(harness, anna.token, "POST", `/v1/projects/${projectId}/messages`, {
      text: "Zpráva po restartu.",
    });
    expect(sent.status).toBe(202);
    for (const page of [annaPage, bobPage]) {
      const caughtUp = turnCard(page, 7);
      await caughtUp.getByText("Zpráva po restartu.").waitFor({ timeout: LIVE_MS * 10 });
      await caughtUp.getByTestId("reply").waitFor({ timeout: TURN_TIMEOUT_MS });
      await page.getByTestId("reconnecting").waitFor({ state: "detached", timeout: 30_000 });
      // The earlier conversation is all there.
      await turnCard(page, 6).getByText("Zpráva během výpadku.").waitFor();
    }
  });

  it("keeps the composer on screen on a phone, with a hint for touch and a word for an empty message", async () => {
    const phone = await bobContext.newPage();
    errors.set("bob, phone", collectConsoleErrors(phone));
    await phone.setViewportSize({ width: 375, height: 812 });
    await phone.goto(`${outage.url}/projects/${projectId}`);
    await turnCard(phone, 6).waitFor();
    const composer = phone.getByLabel("Message to Mara");
    const onScreen = async (): Promise<boolean> => {
      const box = await composer.boundingBox();
      return box !== null && box.y >= 0 && box.y + box.height <= 812;
    };
    for (const scroll of ["0", "document.body.scrollHeight / 2", "document.body.scrollHeight"]) {
      await phone.evaluate(`window.scrollTo(0, ${scroll})`);
      expect(await onScreen(), `the composer after scrolling to ${scroll}`).toBe(true);
    }
    const hint = (await phone.getByTestId("composer-hint").textContent()) ?? "";
    expect(hint).not.toContain("Ctrl");
    expect(hint).toContain("Send");
    // Nothing scrolls sideways.
    expect(
      await phone.evaluate<number>(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      ),
    ).toBeLessThanOrEqual(0);
    await phone.getByRole("button", { name: "Send" }).click();
    await phone.getByRole("alert").getByText("Write a message first").waitFor();
    expect(await composer.getAttribute("aria-invalid")).toBe("true");
    expect(await seriousAxeViolations(phone)).toEqual([]);
    await phone.close();
  });

  it("has no accessibility problem on the chat, and no script error or CSP violation in any tab", async () => {
    expect(await axeViolationsIn(annaPage, ".chat")).toEqual([]);
    expect(await seriousAxeViolations(annaPage)).toEqual([]);
    for (const [name, lines] of errors) {
      // Requests refused while the proxy was cut are the outage the walk asked for.
      const problems = lines.filter(
        (line) => line.startsWith("page error") || line.includes("Content Security Policy"),
      );
      expect(problems, name).toEqual([]);
    }
  });
});
