import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  collectConsoleErrors,
  launchBrowser,
  seriousAxeViolations,
  withoutExpectedFailures,
  type Browser,
  type ExpectedFailure,
} from "../test-support/browser.ts";
import { describeInChromium } from "../test-support/console-suite.ts";
import {
  api,
  defaultProject,
  startHarness,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";

const PROJECT = defaultProject.name;
// How long a tab may take to notice lost access: the console re-checks every 2 s.
const NOTICE_TIMEOUT_MS = 10_000;

/**
 * Accounts a team can live with, in real Chromium with one browser context per person (each
 * its own cookie jar): seats taken by their one-time links, a session every tab shares, access
 * lost while a tab is open, a replaced link, a sign-in link of another account that asks
 * before it switches, and the account's sessions and API tokens.
 */
describeInChromium("accounts, seats and sessions in the web console", () => {
  let harness: Harness;
  let browser: Browser;
  let anna: TestUser;
  let dave: TestUser;
  let annaPage: Page;
  let bobContext: BrowserContext;
  let bobFirstTab: Page;
  let bobSecondTab: Page;
  let carolPage: Page;
  let firstCarolLink: string;
  let newCarolLink: string;
  // Every page's console errors and failed requests, and the failures the walk asks for.
  const errors = new Map<string, string[]>();
  const expectedFailures: ExpectedFailure[] = [];
  // Whatever beforeAll got to start, stopped in reverse order even when a later step failed.
  const started: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    harness = await startHarness();
    started.push(() => harness.close());
    anna = await harness.createUser({ email: "anna.accounts@example.org", displayName: "Anna K" });
    dave = await harness.createUser({ email: "dave.accounts@example.org", displayName: "Dave D" });
    const created = await api(harness, anna.token, "POST", "/v1/projects", defaultProject);
    expect(created.status, created.text).toBe(201);
    browser = await launchBrowser();
    started.push(() => browser.close());
    annaPage = await newWatchedPage(browser.context, "anna");
    // Every page here opens signed out first, or with a link: GET /v1/me answers 401 then.
    expectedFailures.push({ status: 401, url: `${harness.url}/v1/me` });
  });

  afterAll(async () => {
    for (const stop of started.reverse()) await stop();
  });

  async function newWatchedPage(context: BrowserContext, name: string): Promise<Page> {
    const page = await context.newPage();
    errors.set(name, collectConsoleErrors(page));
    return page;
  }

  async function expectNoSeriousViolations(page: Page, view: string): Promise<void> {
    expect(await seriousAxeViolations(page), `axe-core on ${view}`).toEqual([]);
  }

  async function signInByToken(page: Page, token: string): Promise<void> {
    await page.goto(`${harness.url}/`);
    await page.getByLabel("Sign-in code or API token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Signed in as").waitFor();
  }

  const inviteLinkPattern = (): RegExp => new RegExp(`^${harness.url}/#invite=tkiv_\\S+$`);

  async function invite(salutation: string): Promise<string> {
    await annaPage.getByRole("tab", { name: "Team" }).click();
    const form = annaPage.getByTestId("invite-form");
    await form.getByTestId("invite-salutation").fill(salutation);
    await form.getByTestId("invite-submit").click();
    const link = (await form.getByTestId("invite-link").textContent()) ?? "";
    expect(link).toMatch(inviteLinkPattern());
    await annaPage
      .getByRole("list", { name: "Pending invites" })
      .locator(`[data-seat="${salutation}"]`)
      .waitFor();
    return link;
  }

  it("signs the owner in by pasting her API token", async () => {
    await signInByToken(annaPage, anna.token);
    await annaPage.getByRole("heading", { name: PROJECT, level: 2 }).waitFor();
  });

  it("opens a seat for Bob from the Team tab; Bob takes it by its link with a new account", async () => {
    const link = await invite("Bob");
    await expectNoSeriousViolations(annaPage, "the team view with a pending invite");

    bobContext = await browser.newContext();
    bobFirstTab = await newWatchedPage(bobContext, "bob, first tab");
    await bobFirstTab.goto(link);
    // The code leaves the address bar before anything else happens.
    expect(bobFirstTab.url()).toBe(`${harness.url}/`);
    await bobFirstTab.getByRole("heading", { name: `Join ${PROJECT}` }).waitFor();
    expect(await bobFirstTab.getByLabel("Your name").inputValue()).toBe("Bob");
    await expectNoSeriousViolations(bobFirstTab, "the invite's join form");
    await bobFirstTab.getByLabel("Your name").fill("Bob Novák");
    await bobFirstTab.getByRole("button", { name: "Join" }).click();
    await bobFirstTab.getByText("Signed in as").waitFor();
    await bobFirstTab.getByRole("heading", { name: PROJECT, level: 2 }).waitFor();
    expect(await bobFirstTab.locator(".who strong").textContent()).toBe("Bob Novák");
  });

  it("keeps Bob signed in in a second tab of his browser", async () => {
    bobSecondTab = await newWatchedPage(bobContext, "bob, second tab");
    await bobSecondTab.goto(`${harness.url}/`);
    await bobSecondTab.getByRole("heading", { name: PROJECT, level: 2 }).waitFor();
    await bobSecondTab.getByText("Signed in as").waitFor();
    expect(await bobSecondTab.getByLabel("Sign-in code or API token").count()).toBe(0);
  });

  it("shows Bob's open tabs that he lost access when the owner removes him", async () => {
    await annaPage.getByRole("tab", { name: "Chat" }).click();
    await annaPage.getByRole("tab", { name: "Team" }).click();
    const bob = annaPage.getByRole("list", { name: "Members" }).locator('[data-member="Bob"]');
    await bob.waitFor();
    await bob.getByRole("button", { name: "Remove Bob" }).click();
    await bob.getByRole("button", { name: "Remove", exact: true }).click();
    await bob.waitFor({ state: "detached" });

    const notice = `You no longer have access to ${PROJECT}.`;
    for (const tab of [bobSecondTab, bobFirstTab]) {
      await tab.getByTestId("notice").getByText(notice).waitFor({ timeout: NOTICE_TIMEOUT_MS });
      await tab.getByText("Create a project to start.").waitFor();
      // Still signed in: he lost the project, not his account.
      await tab.getByText("Signed in as").waitFor();
    }
    await expectNoSeriousViolations(bobSecondTab, "the lost-access notice");
  });

  it("replaces Carol's link: the first one stops working, the new one lets her in", async () => {
    firstCarolLink = await invite("Carol");
    const seat = annaPage
      .getByRole("list", { name: "Pending invites" })
      .locator('[data-seat="Carol"]');
    await seat.getByRole("button", { name: "New link for Carol" }).click();
    await seat.getByText("The earlier link no longer works.").waitFor();
    newCarolLink = (await seat.getByTestId("invite-link").textContent()) ?? "";
    expect(newCarolLink).toMatch(inviteLinkPattern());
    expect(newCarolLink).not.toBe(firstCarolLink);

    const carolContext = await browser.newContext();
    carolPage = await newWatchedPage(carolContext, "carol");
    await carolPage.goto(firstCarolLink);
    const prompt = carolPage.getByTestId("invite-prompt");
    await prompt.getByRole("alert").waitFor();
    expect(await prompt.getByLabel("Your name").count()).toBe(0);
    expectedFailures.push({ status: 401, url: `${harness.url}/v1/invites/preview` });
    await expectNoSeriousViolations(carolPage, "a replaced invite link");

    // The new link, opened in the same tab: only the fragment changes.
    await carolPage.goto(newCarolLink);
    await carolPage.getByRole("heading", { name: `Join ${PROJECT}` }).waitFor();
    await carolPage.getByRole("button", { name: "Join" }).click();
    await carolPage.getByRole("heading", { name: PROJECT, level: 2 }).waitFor();
    expect(await carolPage.locator(".who strong").textContent()).toBe("Carol");
  });

  it("keeps an owner: the last one can neither step down nor leave, until she makes Carol one", async () => {
    await annaPage.getByRole("tab", { name: "Chat" }).click();
    await annaPage.getByRole("tab", { name: "Team" }).click();
    const members = annaPage.getByRole("list", { name: "Members" });
    const annaCard = members.locator('[data-member="Anna"]');
    const carolCard = members.locator('[data-member="Carol"]');
    await carolCard.waitFor();
    const refusal = annaPage.getByTestId("members-error");

    await annaCard.getByRole("button", { name: "Make Anna a member" }).click();
    await refusal.getByText(/^A project needs an owner/).waitFor();
    await annaCard.getByRole("button", { name: "Leave project" }).click();
    await annaCard.getByRole("button", { name: "Leave", exact: true }).click();
    await refusal.getByText(/^A project needs an owner/).waitFor();
    expect(await annaCard.locator(".badge").first().textContent()).toBe("owner");
    expectedFailures.push({
      status: 409,
      url: new RegExp(`^${harness.url}/v1/projects/\\d+/members/[\\w-]+$`),
    });
    await expectNoSeriousViolations(annaPage, "the team view with a refusal");

    await carolCard.getByRole("button", { name: "Make Carol an owner" }).click();
    await carolCard.locator(".badge").getByText("owner", { exact: true }).waitFor();
  });

  it("lets Carol leave the project, and her page says so", async () => {
    await carolPage.getByRole("tab", { name: "Team" }).click();
    const carolCard = carolPage
      .getByRole("list", { name: "Members" })
      .locator('[data-member="Carol"]');
    await carolCard.getByRole("button", { name: "Leave project" }).click();
    await carolCard.getByRole("button", { name: "Leave", exact: true }).click();
    await carolPage.getByTestId("notice").getByText(`You left ${PROJECT}.`).waitFor();
    await carolPage.getByText("Create a project to start.").waitFor();
  });

  it("withdraws an invite: its link then says so", async () => {
    const link = await invite("Eve");
    const seat = annaPage
      .getByRole("list", { name: "Pending invites" })
      .locator('[data-seat="Eve"]');
    await seat.getByRole("button", { name: "Withdraw Eve's invite" }).click();
    await seat.getByRole("button", { name: "Withdraw", exact: true }).click();
    await seat.waitFor({ state: "detached" });

    const eve = await newWatchedPage(await browser.newContext(), "eve");
    await eve.goto(link);
    await eve
      .getByTestId("invite-prompt")
      .getByRole("alert")
      .getByText("The project's owner withdrew this invite.")
      .waitFor();
  });

  it("asks Dave, signed in, before he takes a seat as himself", async () => {
    const daveContext = await browser.newContext();
    const davePage = await newWatchedPage(daveContext, "dave");
    // Signed out, a sign-in link signs in at once: there is nobody to switch from.
    await davePage.goto(await harness.signInLink(dave.email));
    await davePage.getByText("Signed in as").waitFor();
    expect(await davePage.locator(".who strong").textContent()).toBe("Dave D");

    const link = await invite("Dave");
    await davePage.goto(link);
    await davePage.getByRole("heading", { name: `Join ${PROJECT} as Dave D?` }).waitFor();
    await expectNoSeriousViolations(davePage, "the join-as-yourself question");
    await davePage.getByRole("button", { name: "Join", exact: true }).click();
    await davePage.getByRole("heading", { name: PROJECT, level: 2 }).waitFor();
  });

  it("asks before a sign-in link of another account switches, and stays on 'Stay'", async () => {
    const link = await harness.signInLink(dave.email);
    expect(link).toMatch(new RegExp(`^${harness.url}/#code=tksi_\\S+$`));
    await annaPage.goto(link);
    const prompt = annaPage.getByTestId("sign-in-link");
    await prompt.getByText("Switch accounts?").waitFor();
    expect((await prompt.textContent())?.replace(/\s+/g, " ")).toContain(
      "This link signs you in as Dave D. You are signed in as Anna K.",
    );
    // The code is off the address (which may name the project shown).
    expect(annaPage.url()).toMatch(new RegExp(`^${harness.url}/(projects/\\d+)?$`));
    await expectNoSeriousViolations(annaPage, "the switch-accounts question");
    await prompt.getByRole("button", { name: "Stay signed in as Anna K" }).click();
    await prompt.waitFor({ state: "detached" });
    await annaPage.reload();
    await annaPage.getByText("Signed in as").waitFor();
    expect(await annaPage.locator(".who strong").textContent()).toBe("Anna K");
  });

  it("switches Bob's browser to another account when he says so; his other tab follows", async () => {
    await bobFirstTab.goto(await harness.signInLink(dave.email));
    const prompt = bobFirstTab.getByTestId("sign-in-link");
    await prompt.getByText("Switch accounts?").waitFor();
    expect((await prompt.textContent())?.replace(/\s+/g, " ")).toContain(
      "You are signed in as Bob Novák.",
    );
    await prompt.getByRole("button", { name: "Switch", exact: true }).click();
    await bobFirstTab.locator(".who strong").getByText("Dave D").waitFor();
    await bobFirstTab.getByRole("heading", { name: PROJECT, level: 2 }).waitFor();
    // The cookie is the browser's: the other tab finds out on its next check.
    await bobSecondTab
      .getByTestId("notice")
      .getByText("This browser is now signed in as Dave D.")
      .waitFor({ timeout: NOTICE_TIMEOUT_MS });
    await bobSecondTab.locator(".who strong").getByText("Dave D").waitFor();
  });

  it("lists Anna's sessions and ends another browser's, which that browser notices", async () => {
    const laptop = await browser.newContext();
    const laptopPage = await newWatchedPage(laptop, "anna's laptop");
    await signInByToken(laptopPage, anna.token);

    await annaPage.getByRole("button", { name: "Account" }).click();
    await annaPage.getByRole("heading", { name: "Your sessions and API tokens" }).waitFor();
    const sessions = annaPage.getByRole("list", { name: "Browser sessions" });
    await sessions.getByTestId("session").nth(1).waitFor();
    expect(await sessions.getByTestId("session").count()).toBe(2);
    const current = sessions.getByTestId("session").filter({ hasText: "this browser" });
    expect(await current.count()).toBe(1);
    await expectNoSeriousViolations(annaPage, "the account view");

    const other = sessions.getByTestId("session").filter({ hasNotText: "this browser" });
    await other.getByRole("button", { name: "End session" }).click();
    await other.getByRole("button", { name: "End session" }).click();
    await sessions.getByTestId("session").nth(1).waitFor({ state: "detached" });
    await laptopPage
      .getByTestId("notice")
      .getByText("Your session ended; sign in again.")
      .waitFor({ timeout: NOTICE_TIMEOUT_MS });
    await laptopPage.getByLabel("Sign-in code or API token").waitFor();
    // The laptop's poll that found its session gone.
    expectedFailures.push({ status: 401, url: `${harness.url}/v1/projects` });
  });

  it("creates an API token, shows its secret once, and revokes it", async () => {
    await annaPage.getByRole("textbox", { name: "Name", exact: true }).fill("laptop CLI");
    await annaPage.getByRole("button", { name: "Create token" }).click();
    const secret = (await annaPage.getByTestId("new-token-secret").textContent()) ?? "";
    expect(secret).toMatch(/^tkbe_\S+$/);
    await annaPage.getByText("It is shown once").waitFor();
    const tokens = annaPage.getByRole("list", { name: "API tokens" });
    await tokens.getByText("laptop CLI").waitFor();
    expect((await api(harness, secret, "GET", "/v1/me")).status).toBe(200);
    await expectNoSeriousViolations(annaPage, "a new API token");

    const token = tokens.getByTestId("api-token").filter({ hasText: "laptop CLI" });
    await token.getByRole("button", { name: "Revoke" }).click();
    await token.getByRole("button", { name: "Revoke" }).click();
    await token.waitFor({ state: "detached" });
    expect((await api(harness, secret, "GET", "/v1/me")).status).toBe(401);
  });

  it("logged no error on any page but the failures the walk asked for", () => {
    for (const [page, logged] of errors) {
      expect(withoutExpectedFailures(logged, expectedFailures), page).toEqual([]);
    }
  });

  it("never wrote a token, sign-in code or invite code to the service's log", () => {
    const logs = harness.logs.join("\n");
    expect(logs).not.toMatch(/tk(be|si|iv)_[A-Za-z0-9_-]{20,}/);
  });
});
