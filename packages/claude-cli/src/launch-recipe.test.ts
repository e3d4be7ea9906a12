import { describe, expect, it } from "vitest";
import { launchArgs, launchEnv } from "./launch-recipe.ts";

/*
 * The expected arrays and objects are what each host produced before the recipe existed
 * (the backend's extraClaudeArgs/claudeEnvironment, the daemon's ClaudeCodeRuntime and
 * buildAgentEnv, at 169b209): the recipe changes no byte of either launch.
 */
const MARA_DENIED = [
  "Agent(general-purpose)",
  "Agent(claude)",
  "Agent(statusline-setup)",
  "Agent(Explore)",
  "Agent(Plan)",
  "Edit(**/CLAUDE.md)",
  "Edit(**/CLAUDE.local.md)",
  "Edit(**/AGENTS.md)",
  "Edit(**/.claude/**)",
  "Edit(**/.mcp.json)",
];

describe("launchArgs", () => {
  it("builds the backend's arguments: Mara's plugin agent, permission mode, tool rules, sandbox", () => {
    const mara = {
      cwd: "/ws/p1",
      systemPrompt: { pluginDir: "/plugins/mara", agent: "mara" },
      disallowedTools: MARA_DENIED,
    };
    expect(
      launchArgs({
        ...mara,
        resume: { id: "sess-1", at: "msg-9" },
        permissionMode: "acceptEdits",
        allowedTools: ["Read", "Bash(npm test:*)"],
        sandbox: { denyRead: ["/data", "/ws"], allowedHosts: ["example.com:443"] },
      }),
    ).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--resume",
      "sess-1",
      "--resume-session-at",
      "msg-9",
      "--plugin-dir",
      "/plugins/mara",
      "--agent",
      "mara",
      "--exclude-dynamic-system-prompt-sections",
      "--permission-mode",
      "acceptEdits",
      "--disallowedTools",
      "Agent(general-purpose),Agent(claude),Agent(statusline-setup),Agent(Explore),Agent(Plan),Edit(**/CLAUDE.md),Edit(**/CLAUDE.local.md),Edit(**/AGENTS.md),Edit(**/.claude/**),Edit(**/.mcp.json)",
      "--allowedTools",
      "Read,Bash(npm test:*)",
      "--settings",
      '{"sandbox":{"enabled":true,"failIfUnavailable":true,"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"filesystem":{"denyRead":["/data","/ws"],"allowRead":["/ws/p1"]},"network":{"allowedDomains":["example.com:443"],"strictAllowlist":true}}}',
    ]);
    expect(
      launchArgs({
        ...mara,
        resume: null,
        permissionMode: "default",
        allowedTools: [],
        sandbox: null,
      }),
    ).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--plugin-dir",
      "/plugins/mara",
      "--agent",
      "mara",
      "--exclude-dynamic-system-prompt-sections",
      "--permission-mode",
      "default",
      "--disallowedTools",
      "Agent(general-purpose),Agent(claude),Agent(statusline-setup),Agent(Explore),Agent(Plan),Edit(**/CLAUDE.md),Edit(**/CLAUDE.local.md),Edit(**/AGENTS.md),Edit(**/.claude/**),Edit(**/.mcp.json)",
    ]);
  });

  it("builds the daemon's arguments: the standing prompt appended, ticlawk allowed, sandbox, the operator's last", () => {
    const agent = {
      cwd: "/ws/alice",
      systemPrompt: { append: "You are Alice." },
      allowedTools: ["Bash(ticlawk:*)"],
      sandbox: {
        denyRead: ["/data"],
        allowRead: ["/data/bin", "/data/turn-env/s.sh"],
        allowedHosts: ["127.0.0.1:7421"],
      },
    };
    expect(
      launchArgs({
        ...agent,
        resume: { id: "sess-1", at: "msg-9" },
        extraArgs: ["--model", "haiku"],
      }),
    ).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--resume",
      "sess-1",
      "--resume-session-at",
      "msg-9",
      "--append-system-prompt",
      "You are Alice.",
      "--exclude-dynamic-system-prompt-sections",
      "--allowedTools",
      "Bash(ticlawk:*)",
      "--settings",
      '{"sandbox":{"enabled":true,"failIfUnavailable":true,"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"filesystem":{"denyRead":["/data"],"allowRead":["/ws/alice","/data/bin","/data/turn-env/s.sh"]},"network":{"allowedDomains":["127.0.0.1:7421"],"strictAllowlist":true}}}',
      "--model",
      "haiku",
    ]);
    expect(launchArgs({ ...agent, resume: null })).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--append-system-prompt",
      "You are Alice.",
      "--exclude-dynamic-system-prompt-sections",
      "--allowedTools",
      "Bash(ticlawk:*)",
      "--settings",
      '{"sandbox":{"enabled":true,"failIfUnavailable":true,"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"filesystem":{"denyRead":["/data"],"allowRead":["/ws/alice","/data/bin","/data/turn-env/s.sh"]},"network":{"allowedDomains":["127.0.0.1:7421"],"strictAllowlist":true}}}',
    ]);
  });

  it("resumes a session without a resume point when it has none", () => {
    expect(
      launchArgs({
        cwd: "/ws",
        systemPrompt: { append: "x" },
        resume: { id: "sess-1", at: null },
        allowedTools: [],
        sandbox: null,
      }),
    ).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--resume",
      "sess-1",
      "--append-system-prompt",
      "x",
      "--exclude-dynamic-system-prompt-sections",
    ]);
  });
});

describe("launchEnv", () => {
  it("builds the backend's environment: named variables only, never the provider's, quiet, own TMPDIR", () => {
    const env = launchEnv({
      inherit: {
        parentEnv: {
          PATH: "/usr/bin",
          HOME: "/home/s",
          LANG: "C.UTF-8",
          TZ: "UTC",
          HTTPS_PROXY: "http://proxy:3128",
          ANTHROPIC_API_KEY: "sk-ant",
          ANTHROPIC_BASE_URL: "http://x",
          DATABASE_URL: "postgres://secret",
        },
        names: ["HTTPS_PROXY", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "MISSING"],
        withheld: [/^(ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN|ANTHROPIC_BASE_URL)$/],
      },
      configDir: "/data/claude",
      tmpDir: "/data/tmp",
      quiet: true,
      promptCacheTtl: "1h",
      overrides: { EXTRA: "1" },
    });
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/s",
      LANG: "C.UTF-8",
      TZ: "UTC",
      HTTPS_PROXY: "http://proxy:3128",
      CLAUDE_CONFIG_DIR: "/data/claude",
      TMPDIR: "/data/tmp",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
      CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "1",
      ENABLE_PROMPT_CACHING_1H: "1",
      EXTRA: "1",
    });
    expect(Object.keys(env)).toEqual([
      "PATH",
      "HOME",
      "LANG",
      "TZ",
      "HTTPS_PROXY",
      "CLAUDE_CONFIG_DIR",
      "TMPDIR",
      "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
      "DISABLE_AUTOUPDATER",
      "DISABLE_TELEMETRY",
      "DISABLE_ERROR_REPORTING",
      "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
      "CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS",
      "ENABLE_PROMPT_CACHING_1H",
      "EXTRA",
    ]);
  });

  it("builds the daemon's environment: everything but what is withheld, then the agent's identity", () => {
    const env = launchEnv({
      inherit: {
        parentEnv: {
          PATH: "/data/bin:/usr/bin",
          HOME: "/home/d",
          ANTHROPIC_API_KEY: "k",
          ANTHROPIC_BASE_URL: "http://x",
          DATABASE_URL: "pg",
          TICLAWK_AGENT_ID: "x",
          U: undefined,
        },
        names: "all",
        withheld: [/^ANTHROPIC_API_KEY$/, /^DATABASE_URL$/, /^TICLAWK_/],
      },
      hostEnv: {
        HUB: "tok",
        PATH: "/data/bin:/usr/bin",
        TICLAWK_AGENT_ID: "alice",
        TICLAWK_SESSION_ID: "s-1",
        TICLAWK_HOST_ID: "box",
        TICLAWK_CONVERSATION_ID: "c-1",
        TICLAWK_MESSAGE_ID: "m-1",
        TICLAWK_TARGET: "#g",
        TICLAWK_TURN_ID: "t-1",
        TICLAWK_DAEMON_URL: "http://127.0.0.1:7420",
        TICLAWK_TURN_ENV_FILE: "/data/turn-env/s-1.sh",
      },
      configDir: "/data/claude",
      tmpDir: null,
      quiet: false,
      promptCacheTtl: "5m",
    });
    expect(env).toEqual({
      PATH: "/data/bin:/usr/bin",
      HOME: "/home/d",
      ANTHROPIC_BASE_URL: "http://x",
      HUB: "tok",
      TICLAWK_AGENT_ID: "alice",
      TICLAWK_SESSION_ID: "s-1",
      TICLAWK_HOST_ID: "box",
      TICLAWK_CONVERSATION_ID: "c-1",
      TICLAWK_MESSAGE_ID: "m-1",
      TICLAWK_TARGET: "#g",
      TICLAWK_TURN_ID: "t-1",
      TICLAWK_DAEMON_URL: "http://127.0.0.1:7420",
      TICLAWK_TURN_ENV_FILE: "/data/turn-env/s-1.sh",
      CLAUDE_CONFIG_DIR: "/data/claude",
      CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
      CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "1",
    });
    expect(Object.keys(env)).toEqual([
      "PATH",
      "HOME",
      "ANTHROPIC_BASE_URL",
      "HUB",
      "TICLAWK_AGENT_ID",
      "TICLAWK_SESSION_ID",
      "TICLAWK_HOST_ID",
      "TICLAWK_CONVERSATION_ID",
      "TICLAWK_MESSAGE_ID",
      "TICLAWK_TARGET",
      "TICLAWK_TURN_ID",
      "TICLAWK_DAEMON_URL",
      "TICLAWK_TURN_ENV_FILE",
      "CLAUDE_CONFIG_DIR",
      "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
      "CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS",
    ]);
  });
});
