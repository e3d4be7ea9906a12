import { describe, expect, it } from "vitest";
import { daemonSandbox, hostAndPort, turnSandboxPolicy } from "./agent-sandbox.ts";

describe("the agents' sandbox", () => {
  const shared = daemonSandbox({
    dataDir: "/srv/daemon",
    claudeConfigDir: "/srv/daemon/claude",
    denyRead: ["/srv/hub", "/srv/daemon"],
    ticlawkBinDir: "/srv/daemon/bin",
    upstreamUrl: "http://127.0.0.1:7421",
  });

  it("denies the data dir, the CLI's config dir and the operator's dirs; reaches the message service's port only", () => {
    expect(shared).toEqual({
      denyRead: ["/srv/daemon", "/srv/daemon/claude", "/srv/hub"],
      allowRead: ["/srv/daemon/bin"],
      allowedHosts: ["127.0.0.1:7421"],
    });
    const alone = daemonSandbox({
      dataDir: "/d",
      claudeConfigDir: "/c",
      denyRead: [],
      ticlawkBinDir: "/d/bin",
      upstreamUrl: null,
    });
    expect(alone.allowedHosts).toEqual([]);
  });

  it("denies every other agent's workspace per turn and lets the session's turn-env file be read", () => {
    expect(
      turnSandboxPolicy(shared, {
        workspaceDir: "/w/alice",
        otherWorkspaces: ["/w/zed", "/w/bob", "/w/alice"],
        turnEnvFile: "/srv/daemon/turn-env/s-1.sh",
      }),
    ).toEqual({
      denyRead: ["/srv/daemon", "/srv/daemon/claude", "/srv/hub", "/w/bob", "/w/zed"],
      allowRead: ["/srv/daemon/bin", "/srv/daemon/turn-env/s-1.sh"],
      allowedHosts: ["127.0.0.1:7421"],
    });
  });

  it.each([
    ["http://127.0.0.1:7421", "127.0.0.1:7421"],
    ["http://127.0.0.1:7421/base/", "127.0.0.1:7421"],
    ["http://[::1]:7421", "[::1]:7421"],
    ["http://hub.example", "hub.example:80"],
    ["https://hub.example", "hub.example:443"],
  ])("allows %s as %s (always with its port)", (url, host) => {
    expect(hostAndPort(url)).toBe(host);
  });
});
