import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { baseEnv, runCli, serve } from "./test-support/cli-process.ts";
import { api } from "./test-support/harness.ts";

describe("talkide-be CLI while the service holds the embedded database", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-cli-live-"));
  const env = baseEnv(dataDir);
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("creates users, tokens and invites through the admin API, and the database when stopped", async () => {
    const service = await serve(env);
    let stopped = false;
    try {
      // The first start seeds the demo user and project 1 and prints the demo token once.
      const demoToken = /export TALKIDE_TOKEN=(tkbe_[A-Za-z0-9_-]+)/.exec(service.stdout())?.[1];
      if (demoToken === undefined) throw new Error(`no demo token in:\n${service.stdout()}`);

      const bo = await runCli(["create-user", "--email", "bo@example.com", "--name", "Bo"], env);
      expect(bo.code).toBe(0);
      expect(bo.stdout).toMatch(/^tkbe_[A-Za-z0-9_-]{43}\n$/);
      expect((await api(service, bo.stdout.trim(), "GET", "/v1/me")).body).toMatchObject({
        displayName: "Bo",
      });
      const again = await runCli(["create-user", "--email", "BO@example.com", "--name", "B"], env);
      expect(again).toMatchObject({ code: 2, stdout: "" });
      expect(again.stderr).toContain("error (email_taken)");
      const token = await runCli(["create-token", "--email", "bo@example.com"], env);
      expect(token.code).toBe(0);
      expect((await api(service, token.stdout.trim(), "GET", "/v1/me")).status).toBe(200);

      const invited = await runCli(
        ["invite", "--project", "1", "--email", "cyril@example.com", "--salutation", "Cyril"],
        env,
      );
      expect(invited.code).toBe(0);
      expect(invited.stderr).toContain("Invited Cyril to project 1");
      const link = invited.stdout.trim();
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#invite=tkiv_[A-Za-z0-9_-]{43}$/);
      expect(link.startsWith(`${service.url}/#invite=`)).toBe(true);
      const code = link.slice(link.indexOf("#invite=") + "#invite=".length);
      const redeemed = await api(service, null, "POST", "/v1/invites/accept", {
        code,
        join: "new-account",
      });
      expect(redeemed.status).toBe(201);
      const roster = await api<{ members: Array<{ salutation: string; you: boolean }> }>(
        service,
        demoToken,
        "GET",
        "/v1/projects/1/members",
      );
      expect(roster.body.members).toContainEqual(
        expect.objectContaining({ salutation: "Cyril", you: false }),
      );

      const taken = await runCli(
        ["invite", "--project", "1", "--email", "dana@example.com", "--salutation", "CYRIL"],
        env,
      );
      expect(taken.code).toBe(2);
      expect(taken.stderr).toContain("error (salutation_taken)");
      const signInLink = await runCli(["sign-in-link", "--email", "bo@example.com"], env);
      expect(signInLink.code).toBe(0);
      expect(signInLink.stdout.trim()).toMatch(
        new RegExp(`^${service.url.replace(/[.]/g, "\\.")}/#code=tksi_[A-Za-z0-9_-]{43}$`),
      );
      const wrongToken = await runCli(
        ["create-token", "--email", "bo@example.com", "--token", "tkad_wrong"],
        env,
      );
      expect(wrongToken.code).toBe(2);
      expect(wrongToken.stderr).toContain("error (admin_token_invalid)");

      expect(await service.stop()).toBe(0);
      stopped = true;
    } finally {
      if (!stopped) await service.stop();
    }

    // Stopped: the CLI opens the database itself again; --url insists on a service.
    const offline = await runCli(["create-token", "--email", "bo@example.com"], env);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toMatch(/^tkbe_/);
    const offlineLink = await runCli(["sign-in-link", "--email", "bo@example.com"], env);
    expect(offlineLink.code).toBe(0);
    expect(offlineLink.stdout).toMatch(/\/#code=tksi_/);
    const unreachable = await runCli(
      ["create-token", "--email", "bo@example.com", "--url", service.url],
      env,
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain("error (be_unreachable)");
  }, 600_000); // a bound for a hung run only: on a loaded 2-core machine this takes minutes
});
