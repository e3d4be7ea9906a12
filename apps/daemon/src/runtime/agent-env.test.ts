import { describe, expect, it } from "vitest";
import { buildAgentEnv, type TurnIdentity } from "./agent-env.ts";

const turn: TurnIdentity = {
  agentId: "alice",
  sessionId: "s-1",
  hostId: "box",
  conversationId: "c-1",
  messageId: "m-1",
  target: "#general",
  turnId: "t-1",
  daemonUrl: "http://127.0.0.1:7420",
  turnEnvFile: "/data/turn-env/s-1.sh",
};

const claude = { claudeConfigDir: "/data/claude", promptCacheTtl: "5m" } as const;

describe("buildAgentEnv", () => {
  it("carries the turn's identity and puts the ticlawk directory first on PATH", () => {
    const env = buildAgentEnv({
      baseEnv: { PATH: "/usr/bin:/bin", HOME: "/home/a", LANG: "C.UTF-8" },
      ticlawkBinDir: "/data/bin",
      turn,
      ...claude,
    });
    expect(env).toEqual({
      PATH: "/data/bin:/usr/bin:/bin",
      HOME: "/home/a",
      LANG: "C.UTF-8",
      TICLAWK_AGENT_ID: "alice",
      TICLAWK_SESSION_ID: "s-1",
      TICLAWK_HOST_ID: "box",
      TICLAWK_CONVERSATION_ID: "c-1",
      TICLAWK_MESSAGE_ID: "m-1",
      TICLAWK_TARGET: "#general",
      TICLAWK_TURN_ID: "t-1",
      TICLAWK_DAEMON_URL: "http://127.0.0.1:7420",
      TICLAWK_TURN_ENV_FILE: "/data/turn-env/s-1.sh",
      CLAUDE_CONFIG_DIR: "/data/claude",
      CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
      CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "1",
    });
  });

  it("keeps the daemon's Claude config dir and the hermetic variables over inherited ones, and sets the cache lifetime", () => {
    const env = buildAgentEnv({
      baseEnv: {
        PATH: "/usr/bin",
        CLAUDE_CONFIG_DIR: "/home/a/.claude",
        CLAUDE_CODE_DISABLE_AUTO_MEMORY: "0",
      },
      ticlawkBinDir: "/data/bin",
      turn,
      claudeConfigDir: "/data/claude",
      promptCacheTtl: "1h",
    });
    expect(env["CLAUDE_CONFIG_DIR"]).toBe("/data/claude");
    expect(env["CLAUDE_CODE_DISABLE_AUTO_MEMORY"]).toBe("1");
    expect(env["ENABLE_PROMPT_CACHING_1H"]).toBe("1");
  });

  it("withholds the daemon's secrets, the provider's credential and stale turn variables, and does not repeat the ticlawk dir", () => {
    const env = buildAgentEnv({
      baseEnv: {
        PATH: "/data/bin:/usr/bin",
        DATABASE_URL: "postgres://secret",
        TALKIDE_ADMIN_TOKEN: "tkd_x",
        TALKIDE_DAEMON_PORT: "7420",
        PGPASSWORD: "pw",
        ANTHROPIC_API_KEY: "sk-ant-key",
        ANTHROPIC_AUTH_TOKEN: "proxy-token",
        CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat",
        TICLAWK_AGENT_ID: "someone-else",
        UNSET: undefined,
      },
      ticlawkBinDir: "/data/bin",
      turn,
      ...claude,
    });
    expect(env["DATABASE_URL"]).toBeUndefined();
    expect(env["TALKIDE_ADMIN_TOKEN"]).toBeUndefined();
    expect(env["TALKIDE_DAEMON_PORT"]).toBeUndefined();
    expect(env["PGPASSWORD"]).toBeUndefined();
    // The provider's credential: the model gateway holds it, each process gets its own token.
    expect(env["ANTHROPIC_API_KEY"]).toBeUndefined();
    expect(env["ANTHROPIC_AUTH_TOKEN"]).toBeUndefined();
    expect(env["CLAUDE_CODE_OAUTH_TOKEN"]).toBeUndefined();
    expect(env["UNSET"]).toBeUndefined();
    expect(env["TICLAWK_AGENT_ID"]).toBe("alice");
    expect(env["PATH"]).toBe("/data/bin:/usr/bin");
  });

  it("lets extensions add variables but not override the turn's identity or PATH", () => {
    const env = buildAgentEnv({
      baseEnv: { PATH: "/usr/bin" },
      ticlawkBinDir: "/data/bin",
      turn,
      extra: { TICLAWK_HUB_TOKEN: "agent-token", TICLAWK_AGENT_ID: "mallory", PATH: "/evil" },
      ...claude,
    });
    expect(env["TICLAWK_HUB_TOKEN"]).toBe("agent-token");
    expect(env["TICLAWK_AGENT_ID"]).toBe("alice");
    expect(env["PATH"]).toBe("/data/bin:/usr/bin");
  });
});
