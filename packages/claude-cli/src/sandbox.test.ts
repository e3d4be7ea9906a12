import { describe, expect, it } from "vitest";
import { assertSandboxAvailable, runsCode, sandboxSettings } from "./sandbox.ts";
import { sandboxSuiteCanRun } from "./testing/real-claude.ts";

const sandboxRuns = await sandboxSuiteCanRun("the sandbox check's own test");

describe("runsCode", () => {
  it.each([
    ["Bash", true],
    ["Bash(npm test:*)", true],
    ["Bash(*)", true],
    [" Bash(talkide-ports check)", true],
    ["PowerShell", true],
    ["Read", false],
    ["Edit(src/**)", false],
    ["WebFetch(domain:example.com)", false],
    ["BashOutput", false],
  ])("%s: %s", (rule, expected) => {
    expect(runsCode(rule)).toBe(expected);
  });
});

describe("sandboxSettings", () => {
  it("turns the sandbox on with no way around it and the workspace readable", () => {
    expect(
      sandboxSettings("/srv/w/project-1", {
        denyRead: ["/srv/data", "/srv/w"],
        allowedHosts: ["registry.npmjs.org"],
      }),
    ).toEqual({
      sandbox: {
        enabled: true,
        failIfUnavailable: true,
        allowUnsandboxedCommands: false,
        autoAllowBashIfSandboxed: false,
        filesystem: { denyRead: ["/srv/data", "/srv/w"], allowRead: ["/srv/w/project-1"] },
        network: { allowedDomains: ["registry.npmjs.org"], strictAllowlist: true },
      },
    });
  });

  it("keeps more paths readable inside the denied ones when asked, after the workspace", () => {
    const settings = sandboxSettings("/srv/w/a", {
      denyRead: ["/srv/data", "/srv/w/b"],
      allowRead: ["/srv/data/bin", "/srv/data/turn-env/s-1.sh"],
      allowedHosts: ["127.0.0.1:7421"],
    }) as { sandbox: { filesystem: unknown; network: unknown } };
    expect(settings.sandbox.filesystem).toEqual({
      denyRead: ["/srv/data", "/srv/w/b"],
      allowRead: ["/srv/w/a", "/srv/data/bin", "/srv/data/turn-env/s-1.sh"],
    });
    expect(settings.sandbox.network).toEqual({
      allowedDomains: ["127.0.0.1:7421"],
      strictAllowlist: true,
    });
  });
});

describe("assertSandboxAvailable", () => {
  it("says what to install when bubblewrap and socat are missing", async () => {
    const refused = assertSandboxAvailable("TALKIDE_CLAUDE_ALLOWED_TOOLS", {
      PATH: "/nonexistent",
    });
    await expect(refused).rejects.toMatchObject({
      code: "sandbox_unavailable",
      message: expect.stringContaining(
        "it needs bubblewrap and socat: install them (sudo apt-get install bubblewrap socat, or sh scripts/debian-packages.sh)",
      ) as unknown,
    });
    await expect(refused).rejects.toThrow(
      /^TALKIDE_CLAUDE_ALLOWED_TOOLS lets the agent run commands/,
    );
    await expect(refused).rejects.toThrow(
      /and start again, or remove the command-running rules\.$/,
    );
  });

  it("offers no way out without the sandbox where the host has none", async () => {
    const refused = assertSandboxAvailable("The daemon's rule", { PATH: "/nonexistent" }, null);
    await expect(refused).rejects.toThrow(/sh scripts\/debian-packages\.sh\) and start again\.$/);
  });

  it.runIf(sandboxRuns)("passes where the sandbox runs (CI installs it)", async () => {
    await expect(assertSandboxAvailable("X")).resolves.toBeUndefined();
  });
});
