import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { baseEnv, runCli, serve } from "./test-support/cli-process.ts";
import { api } from "./test-support/harness.ts";

describe("talkide-be CLI", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-cli-"));
  const env = baseEnv(dataDir);
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("creates users (token on stdout, once), refuses bad input, and issues extra tokens", async () => {
    const migrated = await runCli(["migrate"], env);
    expect(migrated).toMatchObject({ code: 0, stdout: "" });

    const created = await runCli(
      ["create-user", "--email", "ana@example.com", "--name", "Ana", "--phone", "+420 111 222 333"],
      env,
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^tkbe_[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr).toContain("shown only this once");

    const duplicate = await runCli(
      ["create-user", "--email", "ANA@example.com", "--name", "Ana 2"],
      env,
    );
    expect(duplicate.code).toBe(2);
    expect(duplicate.stdout).toBe("");
    expect(duplicate.stderr).toContain("error (email_taken)");
    expect(duplicate.stderr).not.toContain("ANA@example.com");

    const missing = await runCli(["create-user", "--email", "x@example.com"], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--name");

    const invalid = await runCli(["create-user", "--email", "not-an-email", "--name", "X"], env);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("error (invalid_user)");

    const badConfig = await runCli(["migrate"], { ...env, TALKIDE_PORT: "ninety" });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain("TALKIDE_PORT");
    expect(badConfig.stderr).not.toContain("ninety");

    const unknownUser = await runCli(["create-token", "--email", "nobody@example.com"], env);
    expect(unknownUser.code).toBe(2);
    expect(unknownUser.stderr).toContain("error (user_not_found)");

    const second = await runCli(["create-token", "--email", "ana@example.com"], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^tkbe_[A-Za-z0-9_-]{43}\n$/);
    expect(second.stdout).not.toBe(created.stdout);

    // Both tokens work against the service; while it runs, the embedded database is locked.
    const service = await serve(env);
    try {
      for (const token of [created.stdout.trim(), second.stdout.trim()]) {
        const me = await api(service, token, "GET", "/v1/me");
        expect(me.body).toMatchObject({
          email: "ana@example.com",
          displayName: "Ana",
          phone: "+420 111 222 333",
        });
      }
      // Users existed: no demo data, no token printed.
      expect(service.stdout()).not.toContain("TALKIDE_TOKEN");
      // While it runs, the CLI goes through its admin API: see cli-live.test.ts.
    } finally {
      expect(await service.stop()).toBe(0);
    }
    // Everything written until the SIGTERM stop, the stop notice included, ends its line.
    expect(service.stderr()).toMatch(
      /Received SIGTERM; stopping \(running turns are aborted\)\.\n$/,
    );
    expect(service.stdout().endsWith("\n")).toBe(true);
    for (const line of service
      .stdout()
      .split("\n")
      .filter((l) => l.startsWith("{"))) {
      expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
  }, 300_000); // a bound for a hung run only: on a loaded 2-core machine this takes minutes
});
