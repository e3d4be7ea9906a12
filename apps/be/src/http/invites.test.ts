import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, startHarness, type Harness, type TestUser } from "../test-support/harness.ts";

interface Member {
  readonly id: string;
  readonly salutation: string;
  readonly role: string;
  readonly you: boolean;
}
interface InviteBody {
  readonly member: Member;
  readonly signIn: { code: string; path: string; expiresAt: string } | null;
}
interface Problem {
  readonly code: string;
  readonly field?: string;
}

describe("invites and one-time sign-in links", () => {
  let harness: Harness;
  let owner: TestUser;
  let outsider: TestUser;
  let projectId: number;

  const invite = (token: string | null, body: unknown, id: number = projectId) =>
    api<InviteBody & Problem>(harness, token, "POST", `/v1/projects/${id}/invites`, body);
  const redeem = (code: unknown) =>
    api<{ token: string } & Problem>(harness, null, "POST", "/v1/sign-in", { code });

  beforeAll(async () => {
    harness = await startHarness();
    owner = await harness.createUser({ email: "olga@example.com", displayName: "Olga" });
    outsider = await harness.createUser({ email: "oto@example.com", displayName: "Oto" });
    const created = await api<{ project: { id: number } }>(
      harness,
      owner.token,
      "POST",
      "/v1/projects",
      {
        name: "Pekárna",
        member: { salutation: "Olga" },
      },
    );
    projectId = created.body.project.id;
  });
  afterAll(async () => {
    await harness.close();
  });

  it("an owner invites a new person: account, membership, a link that works once", async () => {
    const invited = await invite(owner.token, {
      email: "Petra@Example.com",
      salutation: "Petra",
      teamBriefing: "Frontend.",
    });
    expect(invited.status).toBe(201);
    expect(invited.body.member).toMatchObject({ salutation: "Petra", role: "member", you: false });
    const signIn = invited.body.signIn;
    if (signIn === null) throw new Error("expected a sign-in link");
    expect(signIn.code).toMatch(/^tksi_[A-Za-z0-9_-]{43}$/);
    expect(signIn.path).toBe(`/#token=${signIn.code}`);
    const lifetime = Date.parse(signIn.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(23 * 3600_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3600_000);
    // The e-mail is never echoed, and only the code's hash is stored.
    expect(invited.text).not.toContain("Petra@Example.com");
    const stored = await harness.service.database.db
      .selectFrom("sign_in_codes")
      .selectAll()
      .execute();
    expect(JSON.stringify(stored)).not.toContain(signIn.code);

    const redeemed = await redeem(signIn.code);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.token).toMatch(/^tkbe_/);
    const me = await api(harness, redeemed.body.token, "GET", "/v1/me");
    expect(me.body).toMatchObject({ email: "Petra@Example.com", displayName: "Petra" });

    const roster = await api<{ members: Member[] }>(
      harness,
      redeemed.body.token,
      "GET",
      `/v1/projects/${projectId}/members`,
    );
    expect(roster.body.members.map((m) => [m.salutation, m.you])).toEqual([
      ["Olga", false],
      ["Petra", true],
    ]);
    const claudeMd = await api(
      harness,
      owner.token,
      "GET",
      `/v1/projects/${projectId}/context/CLAUDE.md`,
    );
    expect(claudeMd.text).toContain('\n## Oslovuj jako "Petra"\nBriefing pro tým:\n> Frontend.\n');

    const again = await redeem(signIn.code);
    expect(again.status).toBe(401);
    expect(again.body.code).toBe("sign_in_code_used");
  });

  it("two invites of one new e-mail at once: one account, never a 500", async () => {
    const [a, b] = await Promise.all([
      invite(owner.token, { email: "rita@example.com", salutation: "Rita" }),
      invite(owner.token, { email: "Rita@example.com", salutation: "Rina" }),
    ]);
    // The later one finds a member who has never signed in: a fresh link (200), as a re-invite.
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    const accounts = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM users WHERE email_key = 'rita@example.com'`.execute(
      harness.service.database.db,
    );
    expect(accounts.rows[0]?.n).toBe(1);
  });

  it("refuses wrong, malformed and expired codes", async () => {
    const wrong = await redeem(`tksi_${"A".repeat(43)}`);
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("sign_in_code_invalid");
    const apiToken = await redeem(owner.token);
    expect(apiToken.status).toBe(400);
    expect(apiToken.body.code).toBe("invalid_body");

    const invited = await invite(owner.token, { email: "radek@example.com", salutation: "Radek" });
    const code = invited.body.signIn?.code ?? "";
    await sql`UPDATE sign_in_codes SET expires_at = clock_timestamp() - interval '1 second'`.execute(
      harness.service.database.db,
    );
    const expired = await redeem(code);
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe("sign_in_code_expired");

    // Radek never signed in: inviting him again issues a fresh link (200, nothing added).
    const fresh = await invite(owner.token, { email: "radek@example.com", salutation: "Radek" });
    expect(fresh.status).toBe(200);
    expect(fresh.body.member.salutation).toBe("Radek");
    expect((await redeem(fresh.body.signIn?.code)).status).toBe(200);
    // Now he has signed in: a further invite is a conflict.
    const member = await invite(owner.token, { email: "radek@example.com", salutation: "R" });
    expect(member.status).toBe(409);
    expect(member.body.code).toBe("already_member");
  });

  it("a non-member may not invite; roster rules and errors are those of POST /members", async () => {
    const notMember = await invite(outsider.token, { email: "x@example.com", salutation: "X" });
    expect(notMember.status).toBe(404);
    expect(notMember.body.code).toBe("project_not_found");

    const stranger = await harness.createUser({ email: "m@example.com", displayName: "M" });
    const alsoNotMember = await invite(stranger.token, { email: "y@example.com", salutation: "Y" });
    expect(alsoNotMember.status).toBe(404);

    const taken = await invite(owner.token, { email: "new@example.com", salutation: "  PETRA " });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: "salutation_taken", field: "salutation" });
    // Refused as a whole: no account was left behind for that e-mail.
    const orphan = await harness.service.database.db
      .selectFrom("users")
      .select("id")
      .where("email_key", "=", "new@example.com")
      .executeTakeFirst();
    expect(orphan).toBeUndefined();

    const bad = await invite(owner.token, { email: "not-an-email", salutation: "Z" });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_body");
  });

  it("a plain member gets 403; an existing account is added without a link", async () => {
    const invited = await invite(owner.token, { email: "oto@example.com", salutation: "Oto" });
    expect(invited.status).toBe(201);
    // Oto already has an account and a token: no link into it for the inviter.
    expect(invited.body.signIn).toBeNull();
    const byMember = await invite(outsider.token, { email: "z@example.com", salutation: "Zora" });
    expect(byMember.status).toBe(403);
    expect(byMember.body.code).toBe("owner_required");
    const twice = await invite(owner.token, { email: "oto@example.com", salutation: "Oto 2" });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe("already_member");
  });

  it("the admin routes take the local admin token and nothing else", async () => {
    const adminToken = (await readFile(join(harness.dataDir, "admin-token"), "utf8")).trim();
    const withUserToken = await api<Problem>(harness, owner.token, "POST", "/admin/v1/tokens", {
      email: "olga@example.com",
    });
    expect(withUserToken.status).toBe(401);
    expect(withUserToken.body.code).toBe("admin_token_invalid");
    const issued = await api<{ token: string }>(harness, adminToken, "POST", "/admin/v1/tokens", {
      email: "olga@example.com",
    });
    expect(issued.status).toBe(201);
    expect((await api(harness, issued.body.token, "GET", "/v1/me")).status).toBe(200);
    // The operator's invite always comes with a link, also for an existing account.
    const byOperator = await api<InviteBody>(
      harness,
      adminToken,
      "POST",
      `/admin/v1/projects/${projectId}/invites`,
      { email: "m@example.com", salutation: "Magda" },
    );
    expect(byOperator.status).toBe(201);
    expect(byOperator.body.signIn?.path).toMatch(/^\/#token=tksi_/);
    const unknownProject = await api<Problem>(
      harness,
      adminToken,
      "POST",
      "/admin/v1/projects/999/invites",
      {
        email: "m@example.com",
        salutation: "Magda",
      },
    );
    expect(unknownProject.status).toBe(404);
    expect(unknownProject.body.code).toBe("project_not_found");
  });
});
