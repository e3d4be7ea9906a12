import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBanner } from "../demo.ts";
import { runOfTurn } from "../test-support/engine-sessions.ts";
import { api, startHarness, type Harness, type TestUser } from "../test-support/harness.ts";

/**
 * Issue 48's eight findings, each replayed through the HTTP API as an outsider or a teammate
 * would: every one of these failed on the release before seats and browser sessions.
 */

interface Problem {
  readonly code?: string;
  readonly detail?: string;
}
interface Link {
  readonly code: string;
  readonly path: string;
  readonly url: string;
  readonly expiresAt: string;
}
interface InviteBody extends Problem {
  readonly seat: { id: string; salutation: string; role: string; email: string | null };
  readonly link: Link;
}
interface Member {
  readonly id: string;
  readonly salutation: string;
  readonly role: string;
  readonly you: boolean;
}

/** A browser: keeps the session cookie as a browser would, and sends the page's Origin. */
class CookieJar {
  cookie: string | null = null;
  private readonly harness: Harness;
  private readonly origin: string | null;
  constructor(harness: Harness, origin: string | null = harness.url) {
    this.harness = harness;
    this.origin = origin;
  }

  // T names the body's shape for the caller, as `api<T>` does; it is a cast, said once.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T & Problem; setCookie: string[] }> {
    const response = await fetch(`${this.harness.url}${path}`, {
      method,
      headers: {
        ...(this.cookie === null ? {} : { cookie: this.cookie }),
        ...(this.origin === null || method === "GET" ? {} : { origin: this.origin }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.getSetCookie();
    for (const line of setCookie) {
      const [pair] = line.split(";");
      if (pair === undefined) continue;
      const value = pair.slice(pair.indexOf("=") + 1);
      // A cleared cookie (empty value, or expired) is gone.
      this.cookie = value === "" || /max-age=0|expires=thu, 01 jan 1970/i.test(line) ? null : pair;
    }
    const text = await response.text();
    return {
      status: response.status,
      body: (text === "" ? {} : JSON.parse(text)) as T & Problem,
      setCookie,
    };
  }
}

describe("accounts a team can live with", () => {
  let harness: Harness;
  let olga: TestUser;
  let mallory: TestUser;
  let projectId: number;
  let malloryProject: number;

  const invite = (token: string, project: number, body: unknown) =>
    api<InviteBody>(harness, token, "POST", `/v1/projects/${project}/invites`, body);
  const members = async (token: string, project: number): Promise<Member[]> =>
    (await api<{ members: Member[] }>(harness, token, "GET", `/v1/projects/${project}/members`))
      .body.members;
  const newProject = async (token: string, name: string, salutation: string): Promise<number> =>
    (
      await api<{ project: { id: number } }>(harness, token, "POST", "/v1/projects", {
        name,
        member: { salutation },
      })
    ).body.project.id;

  beforeAll(async () => {
    harness = await startHarness();
    olga = await harness.createUser({ email: "olga@example.com", displayName: "Olga" });
    mallory = await harness.createUser({ email: "mallory@example.com", displayName: "Mallory" });
    projectId = await newProject(olga.token, "Pekárna", "Olga");
    malloryProject = await newProject(mallory.token, "Mallory's", "Mal");
  });
  afterAll(async () => {
    await harness.close();
  });

  it("1: an invite is a seat: another project's link for the same e-mail opens nothing else", async () => {
    // Mallory invites an e-mail that has no account yet and redeems the link herself.
    const planted = await invite(mallory.token, malloryProject, {
      email: "victim@example.com",
      salutation: "Victim",
    });
    expect(planted.status).toBe(201);
    const malloryBrowser = new CookieJar(harness);
    const taken = await malloryBrowser.request<{ project: { id: number } }>(
      "POST",
      "/v1/invites/accept",
      { code: planted.body.link.code, join: "new-account" },
    );
    expect(taken.status).toBe(201);
    // The real owner of another project invites the same e-mail: a seat and a link, nobody added.
    const before = await members(olga.token, projectId);
    const real = await invite(olga.token, projectId, {
      email: "victim@example.com",
      salutation: "Vera",
    });
    expect(real.status).toBe(201);
    expect(real.body.link.code).toMatch(/^tkiv_/);
    expect(await members(olga.token, projectId)).toEqual(before);
    // Mallory's account from the first link does not open Olga's project.
    const peek = await malloryBrowser.request("GET", `/v1/projects/${projectId}`);
    expect(peek.status).toBe(404);
    expect(peek.body.code).toBe("project_not_found");
    // The real person takes the seat with Olga's link, as a new account.
    const vera = new CookieJar(harness);
    const joined = await vera.request("POST", "/v1/invites/accept", {
      code: real.body.link.code,
      join: "new-account",
      displayName: "Vera V",
    });
    expect(joined.status).toBe(201);
    expect((await vera.request("GET", `/v1/projects/${projectId}`)).status).toBe(200);
    // The link worked once.
    const again = await new CookieJar(harness).request("POST", "/v1/invites/accept", {
      code: real.body.link.code,
      join: "new-account",
    });
    expect(again.body.code).toBe("invite_used");
  });

  it("2: a browser session serves every tab; an owner re-issues a seat's link and the old one dies", async () => {
    const link = await harness.signInLink("olga@example.com");
    const code = new URL(link).hash.replace("#code=", "");
    const browser = new CookieJar(harness);
    const signedIn = await browser.request<{ user: { displayName: string } }>(
      "POST",
      "/v1/sign-in",
      { code },
    );
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.displayName).toBe("Olga");
    const cookie = signedIn.setCookie.join("\n");
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).not.toMatch(/Secure/i); // plain http on loopback
    // A second tab is the same browser: the same cookie, still signed in.
    const secondTab = new CookieJar(harness);
    secondTab.cookie = browser.cookie;
    expect((await secondTab.request("GET", "/v1/me")).status).toBe(200);

    const carol = await browser.request<InviteBody>("POST", `/v1/projects/${projectId}/invites`, {
      salutation: "Carol",
    });
    expect(carol.status).toBe(201);
    const pending = await browser.request<{ seats: Array<{ id: string }> }>(
      "GET",
      `/v1/projects/${projectId}/invites`,
    );
    expect(pending.body.seats.map((s) => s.id)).toContain(carol.body.seat.id);
    const reissued = await browser.request<InviteBody>(
      "POST",
      `/v1/projects/${projectId}/invites/${carol.body.seat.id}/link`,
    );
    expect(reissued.status).toBe(200);
    const stale = await api(harness, null, "POST", "/v1/invites/preview", {
      code: carol.body.link.code,
    });
    expect(stale.status).toBe(401);
    expect(stale.body.code).toBe("invite_invalid");
    const fresh = await api<{ project: { name: string }; salutation: string }>(
      harness,
      null,
      "POST",
      "/v1/invites/preview",
      { code: reissued.body.link.code },
    );
    expect(fresh.body).toMatchObject({ project: { name: "Pekárna" }, salutation: "Carol" });
    // Withdrawn: the link stops working.
    const withdrawn = await browser.request(
      "DELETE",
      `/v1/projects/${projectId}/invites/${carol.body.seat.id}`,
    );
    expect(withdrawn.status).toBe(204);
    const dead = await api(harness, null, "POST", "/v1/invites/preview", {
      code: reissued.body.link.code,
    });
    expect(dead.body.code).toBe("invite_withdrawn");
  });

  it("3: sign-out, revocation, expiry and removal end access at once", async () => {
    // Sign out ends the session on the server: the old cookie opens nothing.
    const browser = new CookieJar(harness);
    const code = new URL(await harness.signInLink("olga@example.com")).hash.slice("#code=".length);
    await browser.request("POST", "/v1/sign-in", { code });
    const kept = browser.cookie;
    expect((await browser.request("POST", "/v1/sign-out")).status).toBe(204);
    const replay = new CookieJar(harness);
    replay.cookie = kept;
    expect((await replay.request("GET", "/v1/me")).status).toBe(401);

    // A named API token, shown once, listed, then revoked.
    const made = await api<{ token: { id: string; name: string }; secret: string }>(
      harness,
      olga.token,
      "POST",
      "/v1/me/tokens",
      { name: "ci script", expiresInDays: 7 },
    );
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(/^tkbe_/);
    const listed = await api<{ tokens: Array<{ id: string; name: string }> }>(
      harness,
      olga.token,
      "GET",
      "/v1/me/tokens",
    );
    expect(listed.body.tokens.map((t) => t.name)).toContain("ci script");
    expect(JSON.stringify(listed.body)).not.toContain(made.body.secret);
    expect((await api(harness, made.body.secret, "GET", "/v1/me")).status).toBe(200);
    const revoked = await api(harness, olga.token, "DELETE", `/v1/me/tokens/${made.body.token.id}`);
    expect(revoked.status).toBe(204);
    expect((await api(harness, made.body.secret, "GET", "/v1/me")).status).toBe(401);

    // Tokens expire.
    const old = await api<{ token: { id: string }; secret: string }>(
      harness,
      olga.token,
      "POST",
      "/v1/me/tokens",
      { name: "old" },
    );
    await sql`UPDATE api_tokens SET expires_at = clock_timestamp() - interval '1 second'
      WHERE id = ${old.body.token.id}`.execute(harness.service.database.db);
    expect((await api(harness, old.body.secret, "GET", "/v1/me")).status).toBe(401);

    // A person ends another of their sessions from the list.
    const laptop = new CookieJar(harness);
    const laptopCode = new URL(await harness.signInLink("olga@example.com")).hash.slice(6);
    await laptop.request("POST", "/v1/sign-in", { code: laptopCode });
    const sessions = await api<{ sessions: Array<{ id: string; current: boolean }> }>(
      harness,
      olga.token,
      "GET",
      "/v1/me/sessions",
    );
    expect(sessions.body.sessions.length).toBeGreaterThanOrEqual(1);
    for (const session of sessions.body.sessions) {
      await api(harness, olga.token, "DELETE", `/v1/me/sessions/${session.id}`);
    }
    expect((await laptop.request("GET", "/v1/me")).status).toBe(401);
  });

  it("3: an owner removes a member: their next request, their open stream and their queued message", async () => {
    const bob = await harness.createUser({ email: "bob@example.com", displayName: "Bob" });
    const project = await newProject(olga.token, "Removal", "Olga");
    const seat = await invite(olga.token, project, { salutation: "Bob" });
    const joined = await api(harness, bob.token, "POST", "/v1/invites/accept", {
      code: seat.body.link.code,
      join: "signed-in",
    });
    expect(joined.status).toBe(200);
    const bobMember = (await members(olga.token, project)).find((m) => m.salutation === "Bob");
    if (bobMember === undefined) throw new Error("Bob did not join");

    // Olga's turn runs slowly; Bob's message waits behind it in the project's queue.
    harness.claudeEnv.FAKE_CLAUDE_SCENARIO = "slow";
    // Far longer than the stream's access check: the stream must end by the check, not the turn.
    harness.claudeEnv.FAKE_CLAUDE_DELAY_MS = "30000";
    try {
      const running = await api<{ turn: { id: string } }>(
        harness,
        olga.token,
        "POST",
        `/v1/projects/${project}/messages`,
        { text: "slow" },
      );
      const queued = await api<{ turn: { id: string } }>(
        harness,
        bob.token,
        "POST",
        `/v1/projects/${project}/messages`,
        { text: "from Bob" },
      );
      expect(queued.status).toBe(202);
      // Bob follows Olga's running turn.
      const stream = await fetch(
        `${harness.url}/v1/projects/${project}/turns/${running.body.turn.id}/events`,
        { headers: { authorization: `Bearer ${bob.token}`, accept: "text/event-stream" } },
      );
      const reading = stream.text();
      const removed = await api(
        harness,
        olga.token,
        "DELETE",
        `/v1/projects/${project}/members/${bobMember.id}`,
      );
      expect(removed.status).toBe(204);
      // The stream ends by the access check, long before the slow turn finishes.
      const followed = await reading;
      expect(stream.status).toBe(200);
      expect(followed).toContain("turn.started");
      expect(followed).not.toContain("turn.succeeded");
      expect((await api(harness, bob.token, "GET", `/v1/projects/${project}`)).status).toBe(404);
      const bobsTurn = await api<{ turn: { status: string; error: { code: string } | null } }>(
        harness,
        olga.token,
        "GET",
        `/v1/projects/${project}/turns/${queued.body.turn.id}`,
      );
      expect(bobsTurn.body.turn.status).toBe("failed");
      expect(JSON.stringify(bobsTurn.body.turn)).toContain("member_removed");
      expect(bobsTurn.body.turn).toMatchObject({ costUsd: 0, process: null, sessionId: null });
      // Its run never started: failed as the turn did, having cost nothing.
      expect(await runOfTurn(harness.service.database.db, queued.body.turn.id)).toMatchObject({
        outcome: "failed",
        failure_code: "member_removed",
        process_marker: null,
        cost_usd: 0,
      });
      // Bob's name leaves Mara's context; his turn record still names its writer.
      const claudeMd = await api(harness, olga.token, "GET", `/v1/projects/${project}/context`);
      expect(JSON.stringify(claudeMd.body)).not.toContain('Oslovuj jako \\"Bob\\"');
    } finally {
      delete harness.claudeEnv.FAKE_CLAUDE_SCENARIO;
      delete harness.claudeEnv.FAKE_CLAUDE_DELAY_MS;
    }
  });

  it("3: members leave, roles change, the last owner stays", async () => {
    const eva = await harness.createUser({ email: "eva@example.com", displayName: "Eva" });
    const project = await newProject(olga.token, "Roles", "Olga");
    const seat = await invite(olga.token, project, { salutation: "Eva" });
    await api(harness, eva.token, "POST", "/v1/invites/accept", {
      code: seat.body.link.code,
      join: "signed-in",
    });
    const olgaLeaves = await api(
      harness,
      olga.token,
      "DELETE",
      `/v1/projects/${project}/members/me`,
    );
    expect(olgaLeaves.status).toBe(409);
    expect(olgaLeaves.body.code).toBe("last_owner");
    const evaMember = (await members(olga.token, project)).find((m) => m.salutation === "Eva");
    const notAllowed = await api(
      harness,
      eva.token,
      "PATCH",
      `/v1/projects/${project}/members/me`,
      {
        role: "owner",
      },
    );
    expect(notAllowed.body.code).toBe("owner_required");
    const promoted = await api<{ member: Member }>(
      harness,
      olga.token,
      "PATCH",
      `/v1/projects/${project}/members/${evaMember?.id ?? ""}`,
      { role: "owner" },
    );
    expect(promoted.body.member.role).toBe("owner");
    expect(
      (await api(harness, olga.token, "DELETE", `/v1/projects/${project}/members/me`)).status,
    ).toBe(204);
    expect((await api(harness, olga.token, "GET", `/v1/projects/${project}`)).status).toBe(404);
    const demote = await api(harness, eva.token, "PATCH", `/v1/projects/${project}/members/me`, {
      role: "member",
    });
    expect(demote.body.code).toBe("last_owner");
  });

  it("4: links carry one-time codes only, never an API token", async () => {
    const seat = await invite(olga.token, projectId, { salutation: "Link" });
    expect(seat.body.link.path).toMatch(/^\/#invite=tkiv_[A-Za-z0-9_-]{43}$/);
    expect(seat.body.link.url).toBe(`${harness.url}${seat.body.link.path}`);
    const signIn = await harness.signInLink("olga@example.com");
    expect(signIn).toMatch(/\/#code=tksi_/);
    const banner = startBanner({
      url: harness.url,
      publicUrl: harness.url,
      listensBeyondLoopback: false,
      consoleBuilt: true,
      demo: null,
      signIn: { code: "tksi_x", path: "/#code=tksi_x", expiresAt: "2026-12-08T00:00:00Z" },
      demoModelUrl: null,
    });
    expect(banner).not.toMatch(/#token=|tkbe_/);
    // A sign-in code works once: a copy left in a browser's history is worth nothing.
    const code = new URL(signIn).hash.slice("#code=".length);
    expect((await new CookieJar(harness).request("POST", "/v1/sign-in", { code })).status).toBe(
      200,
    );
    const reused = await new CookieJar(harness).request("POST", "/v1/sign-in", { code });
    expect(reused.body.code).toBe("sign_in_code_used");
  });

  it("5: a link for another account never replaces a sign-in silently; a foreign page cannot act", async () => {
    const browser = new CookieJar(harness);
    const own = new URL(await harness.signInLink("olga@example.com")).hash.slice(6);
    await browser.request("POST", "/v1/sign-in", { code: own });
    const other = new URL(await harness.signInLink("mallory@example.com")).hash.slice(6);
    const preview = await browser.request<{ account: { displayName: string } }>(
      "POST",
      "/v1/sign-in/preview",
      { code: other },
    );
    expect(preview.body.account.displayName).toBe("Mallory");
    const silent = await browser.request("POST", "/v1/sign-in", { code: other });
    expect(silent.status).toBe(409);
    expect(silent.body.code).toBe("account_switch_required");
    const me = await browser.request<{ displayName: string }>("GET", "/v1/me");
    expect(me.body.displayName).toBe("Olga");
    // Not spent by the refusal: the person may still say yes.
    const switched = await browser.request<{ user: { displayName: string } }>(
      "POST",
      "/v1/sign-in",
      { code: other, switchAccount: true },
    );
    expect(switched.body.user.displayName).toBe("Mallory");

    // A foreign page: the cookie-borne state change and the sign-in are refused.
    const foreign = new CookieJar(harness, "https://evil.example");
    foreign.cookie = browser.cookie;
    const made = await foreign.request("POST", "/v1/me/tokens", { name: "stolen" });
    expect(made.status).toBe(403);
    expect(made.body.code).toBe("origin_refused");
    const noOrigin = new CookieJar(harness, null);
    noOrigin.cookie = browser.cookie;
    expect((await noOrigin.request("POST", "/v1/me/tokens", { name: "x" })).status).toBe(403);
    const fresh = new URL(await harness.signInLink("olga@example.com")).hash.slice(6);
    const planted = await new CookieJar(harness, "https://evil.example").request(
      "POST",
      "/v1/sign-in",
      { code: fresh },
    );
    expect(planted.body.code).toBe("origin_refused");
  });

  it("6: nobody learns who has an account, and nobody is added without their link", async () => {
    const existing = await invite(olga.token, projectId, {
      email: "mallory@example.com",
      salutation: "Existing",
    });
    const unknown = await invite(olga.token, projectId, {
      email: "nobody-here@example.com",
      salutation: "Unknown",
    });
    expect(existing.status).toBe(unknown.status);
    expect(Object.keys(existing.body).sort()).toEqual(Object.keys(unknown.body).sort());
    expect(Object.keys(existing.body.seat).sort()).toEqual(Object.keys(unknown.body.seat).sort());
    expect((await members(olga.token, projectId)).map((m) => m.salutation)).not.toContain(
      "Existing",
    );
    const direct = await api(harness, olga.token, "POST", `/v1/projects/${projectId}/members`, {
      email: "mallory@example.com",
      salutation: "Forced",
    });
    expect(direct.status).toBe(410);
    // Mallory does not see Olga's project until she takes the seat herself.
    const list = await api<{ projects: Array<{ id: number }> }>(
      harness,
      mallory.token,
      "GET",
      "/v1/projects",
    );
    expect(list.body.projects.map((p) => p.id)).not.toContain(projectId);
  });

  it("7: the console's page and the API send the security headers", async () => {
    const page = await fetch(`${harness.url}/`);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const apiResponse = await fetch(`${harness.url}/v1/me`);
    expect(apiResponse.headers.get("x-frame-options")).toBe("DENY");
  });
});

describe("8: links that teammates can open", () => {
  let harness: Harness;
  afterAll(async () => {
    await harness.close();
  });

  it("builds every link on the public URL, and the banner says when it and the listen address disagree", async () => {
    harness = await startHarness({ env: { TALKIDE_PUBLIC_URL: "http://192.0.2.10:9090/" } });
    const olga = await harness.createUser({ email: "olga@example.com", displayName: "Olga" });
    const created = await api<{ project: { id: number } }>(
      harness,
      olga.token,
      "POST",
      "/v1/projects",
      {
        name: "Team",
        member: { salutation: "Olga" },
      },
    );
    const seat = await api<InviteBody>(
      harness,
      olga.token,
      "POST",
      `/v1/projects/${created.body.project.id}/invites`,
      { salutation: "Bob" },
    );
    expect(seat.body.link.url).toMatch(/^http:\/\/192\.0\.2\.10:9090\/#invite=tkiv_/);
    // Listening on loopback only while links point at the network: the banner says so.
    expect(harness.printed.join("")).toContain("TALKIDE_HOST=0.0.0.0");
    const beyond = startBanner({
      url: "http://0.0.0.0:9090",
      publicUrl: "http://127.0.0.1:9090",
      listensBeyondLoopback: true,
      consoleBuilt: true,
      demo: null,
      signIn: null,
      demoModelUrl: null,
    });
    expect(beyond).toContain("TALKIDE_PUBLIC_URL");
  });
});
