import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  collectConsoleErrors,
  launchBrowser,
  withoutExpectedFailures,
  type Browser,
} from "../test-support/browser.ts";
import { describeInChromium } from "../test-support/console-suite.ts";
import { startHarness, type Harness } from "../test-support/harness.ts";
import { REAL_CLAUDE } from "../test-support/wire-harness.ts";

/**
 * The first hour of a new team, as a person meets it: the service started without an API key
 * (the local demo model answers) on an empty database (the demo user and its banner link), the
 * console already open in a tab, a second person invited and writing from another browser.
 */
describeInChromium("a new team's first hour in the web console", () => {
  let harness: Harness;
  let browser: Browser;
  let anna: Page;
  let annaErrors: string[];
  let bobContext: BrowserContext;
  let bob: Page;
  let bobErrors: string[];
  let inviteLink: string;
  // Whatever beforeAll got to start, stopped in reverse order even when a later step failed.
  const started: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    harness = await startHarness({
      env: { TALKIDE_CLAUDE_PATH: REAL_CLAUDE ?? "", TALKIDE_DEMO: "true", ANTHROPIC_API_KEY: "" },
    });
    started.push(() => harness.close());
    browser = await launchBrowser();
    started.push(() => browser.close());
    anna = await browser.newPage();
    annaErrors = collectConsoleErrors(anna);
  });

  afterAll(async () => {
    for (const stop of started.reverse()) await stop();
  });

  const consoleUrl = (): string => `${harness.url}/`;

  it("signs in by the banner's link in a tab already open on the console", async () => {
    const link = /http:\/\/\S+\/#code=tksi_\S+/.exec(harness.printed.join("\n"))?.[0];
    expect(link, "the demo banner's sign-in link").toBeDefined();
    await anna.goto(consoleUrl());
    await anna.getByLabel("Sign-in code or API token").waitFor();
    // A mark on the open page: it is still there after the link, so the page was not loaded
    // again (only the fragment changed). A string: no DOM library in this file's types.
    await anna.evaluate("window.openBeforeTheLink = true");
    await anna.goto(link ?? "");
    await anna.getByText("Signed in as").waitFor();
    // The code is off the address; the console then names the project it shows.
    expect(anna.url()).toMatch(new RegExp(`^${harness.url}/(projects/\\d+)?$`));
    expect(await anna.evaluate("window.openBeforeTheLink")).toBe(true);
    await anna.getByRole("heading", { name: "Demo project", level: 2 }).waitFor();
    // The page's icon, and the address browsers ask on their own, both answer (never a 401).
    const icon = await anna.locator('link[rel="icon"]').getAttribute("href");
    expect((await anna.request.get(`${harness.url}${icon ?? ""}`)).status()).toBe(200);
    expect((await anna.request.get(`${harness.url}/favicon.ico`)).status()).toBe(200);
  });

  it("tells what to do in an empty chat", async () => {
    await anna
      .getByTestId("empty-chat")
      .getByText("Write Mara a message below — she sees the project, the team and who writes now")
      .waitFor();
  });

  it("creates the team's project, with a typo's error said once, beside its field", async () => {
    await anna.getByText("New project").click();
    await anna.getByLabel("Name").fill("Pekárna u Jelena");
    await anna.getByLabel("URL").fill("pekarna.example");
    await anna.getByLabel("Salutation (how Mara addresses you)").fill("Anna");
    await anna.getByRole("button", { name: "Create project" }).click();
    const error = anna.locator("#new-project-url-error");
    await error.waitFor();
    const text = "Enter a full web address starting with http:// or https://, or leave it empty.";
    expect(await error.textContent()).toBe(text);
    expect(await anna.getByLabel("URL").getAttribute("aria-describedby")).toBe(
      "new-project-url-error",
    );
    // Once: no summary above the form repeats it, and no API code or field path shows.
    const form = anna.getByRole("form", { name: "New project" });
    expect(await form.getByRole("alert").allTextContents()).toEqual([text]);
    expect(await form.textContent()).not.toMatch(/invalid_field|url: /);

    await anna.getByLabel("URL").fill("https://pekarna.example");
    await anna.getByRole("button", { name: "Create project" }).click();
    await anna.getByRole("heading", { name: "Pekárna u Jelena", level: 2 }).waitFor();
    await anna.getByTestId("empty-chat").waitFor();
  });

  it("invites a second person from the Team tab and gets a one-time link for their seat", async () => {
    await anna.getByRole("tab", { name: "Team" }).click();
    const form = anna.getByTestId("invite-form");
    await form.getByTestId("invite-salutation").fill("Bob");
    await form.getByTestId("invite-submit").click();
    const link = form.getByTestId("invite-link");
    await link.waitFor();
    inviteLink = (await link.textContent()) ?? "";
    expect(inviteLink).toMatch(new RegExp(`^${harness.url}/#invite=tkiv_\\S+$`));
    await anna
      .getByRole("list", { name: "Pending invites" })
      .locator('[data-seat="Bob"]')
      .waitFor();
  });

  it("lets the invited person in by that link, with an account of their own, in their own browser", async () => {
    bobContext = await browser.newContext();
    bob = await bobContext.newPage();
    bobErrors = collectConsoleErrors(bob);
    await bob.goto(inviteLink);
    await bob.getByRole("heading", { name: "Join Pekárna u Jelena" }).waitFor();
    expect(bob.url()).toBe(consoleUrl());
    // Prefilled with the salutation the owner chose; the account's name is Bob's to say.
    expect(await bob.getByLabel("Your name").inputValue()).toBe("Bob");
    await bob.getByLabel("Your name").fill("Bob Novák");
    await bob.getByRole("button", { name: "Join" }).click();
    await bob.getByText("Signed in as").waitFor();
    await bob.getByText("Bob Novák").waitFor();
    await bob.getByRole("heading", { name: "Pekárna u Jelena", level: 2 }).waitFor();
    // The seat is taken: the owner's roster has Bob, the pending list no longer does.
    await anna.getByRole("tab", { name: "Chat" }).click();
    await anna.getByRole("tab", { name: "Team" }).click();
    await anna.getByRole("list", { name: "Members" }).getByText("Bob", { exact: true }).waitFor();
    expect(await anna.getByRole("list", { name: "Pending invites" }).count()).toBe(0);
  });

  it("answers the person who writes now, once, and says the demo cost is not real money", async () => {
    await bob.getByLabel("Message to Mara").fill("Ahoj Maro, kde začneme?");
    await bob.getByRole("button", { name: "Send" }).click();
    // The answer streams into the turn's one card (the project's event stream).
    const turn = bob.getByRole("list", { name: "Conversation" }).locator('[data-turn-number="1"]');
    const reply = turn.getByTestId("reply");
    await bob
      .locator('[data-turn-number="1"][data-status="succeeded"]')
      .waitFor({ timeout: 240_000 });
    await reply.waitFor();
    expect(await bob.getByTestId("reply").count()).toBe(1);
    // The local demo model names the active writer: Bob wrote, so Bob is answered.
    expect(await reply.textContent()).toContain("Bob");
    expect(await turn.getByTestId("turn-cost").textContent()).toMatch(
      /^This turn cost \$\d+\.\d{2,4} · conversation so far \$\d+\.\d{2,4} · demo model: not real money$/,
    );
    // The project's totals say it too.
    await bob.getByTestId("spending-project").waitFor();
    await bob
      .getByTestId("spending-demo")
      .getByText("Demo model: these amounts are not real money.")
      .waitFor();
    // The tokens and cache figures are one click away, in "What Mara sees", not on the card.
    expect(await turn.textContent()).not.toContain("cache write");
    expect(await turn.getByTestId("turn-author").textContent()).toBe("Bob");

    // The owner's chat shows the same turn, Bob's, with the same note beside its cost.
    await anna.getByRole("tab", { name: "Chat" }).click();
    const seen = anna.locator('[data-turn-number="1"]');
    await seen.getByTestId("reply").waitFor();
    expect(await seen.getByTestId("turn-cost").textContent()).toContain("not real money");
  });

  it("shows the writer what Mara sees: them as the active writer, the whole team in CLAUDE.md", async () => {
    await bob.getByRole("tab", { name: "What Mara sees" }).click();
    const writer = bob.locator('pre[data-path=".talkide/active-writer.md"]');
    await writer.waitFor();
    expect(await writer.textContent()).toBe("# Aktuálně píše\nBob\n");
    const claudeMd = (await bob.locator('pre[data-path="CLAUDE.md"]').textContent()) ?? "";
    expect(claudeMd).toContain('## Oslovuj jako "Anna"');
    expect(claudeMd).toContain('## Oslovuj jako "Bob"');
    expect(claudeMd).toContain("@.talkide/active-writer.md");
  });

  it("logged no error in either browser but the signed-out check and the typo's", () => {
    // The project form's 400 is the walk's own doing, and so is the 401 of GET /v1/me that
    // tells a signed-out page to show the sign-in form; a favicon 401, a refused script or
    // style (the CSP) or a script error is not.
    expect(
      withoutExpectedFailures(annaErrors, [
        { status: 401, url: `${harness.url}/v1/me` },
        { status: 400, url: `${harness.url}/v1/projects` },
      ]),
    ).toEqual([]);
    expect(
      withoutExpectedFailures(bobErrors, [{ status: 401, url: `${harness.url}/v1/me` }]),
    ).toEqual([]);
  });

  it("never wrote a token or sign-in code to the service's log", () => {
    const logs = harness.logs.join("\n");
    expect(logs).not.toMatch(/tkbe_[A-Za-z0-9_-]{20,}/);
    expect(logs).not.toContain(inviteLink.split("#invite=")[1] ?? "tkiv_");
    expect(logs).not.toMatch(/tksi_[A-Za-z0-9_-]{20,}/);
  });
});
