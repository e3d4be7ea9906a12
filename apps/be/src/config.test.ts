import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, DEFAULT_PRICES } from "@talkide/gateway";
import { ConfigError } from "@talkide/service-kit";
import { checkModelAccess, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("has defaults that work on a fresh machine", () => {
    const config = loadConfig({ HOME: "/home/anna" }, "/srv/app");
    expect(config).toEqual({
      host: "127.0.0.1",
      port: 9090,
      publicUrl: null,
      sessionIdleHours: 168,
      tokenLifetimeDays: 90,
      connectionLimits: {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 72_000,
        maxConnectionsPerAddress: 64,
      },
      dataDir: "/srv/app/.data/be",
      // Outside the checkout, one directory per data dir (12 hex of its sha256).
      workspacesDir: "/home/anna/.local/share/talkide/be/workspaces-8c8eb285c8b9",
      databaseUrl: null,
      claudePath: null,
      claudeConfigDir: "/srv/app/.data/be/claude",
      claudePermissionMode: "acceptEdits",
      claudeAllowedTools: [],
      sandboxAllowedHosts: [],
      contextLayout: "split",
      turnTimeoutMs: 1_800_000,
      turnQueueLimit: 20,
      projectsPerUser: 20,
      ownerTurnShare: 50,
      instanceLeaseSeconds: 20,
      warmProcesses: 4,
      warmIdleMs: 600_000,
      anthropicApiKey: null,
      anthropicBaseUrl: null,
      claudeEnvPassthrough: [],
      promptCacheTtl: "1h",
      gateway: { limits: DEFAULT_LIMITS, prices: DEFAULT_PRICES },
      demo: true,
      logLevel: "info",
    });
  });

  it("reads the gateway's limits, and names every bad variable of both parts in one refusal", () => {
    const config = loadConfig(
      { HOME: "/h", TALKIDE_LIMIT_USER_DAY_USD: "5.5", TALKIDE_LIMIT_PROJECT_MONTH_TOKENS: "off" },
      "/srv/app",
    );
    expect(config.gateway.limits.find((l) => l.setting === "TALKIDE_LIMIT_USER_DAY_USD")?.cap).toBe(
      5.5,
    );
    expect(() =>
      loadConfig({ HOME: "/h", TALKIDE_PORT: "70000", TALKIDE_LIMIT_USER_DAY_USD: "lots" }, "/srv"),
    ).toThrow(
      /TALKIDE_PORT: must be between 0 and 65535; TALKIDE_LIMIT_USER_DAY_USD: must be an amount in USD/,
    );
  });

  it("puts the default workspaces under XDG_DATA_HOME when it is an absolute path", () => {
    expect(
      loadConfig({ HOME: "/home/anna", XDG_DATA_HOME: "/data" }, "/srv/app").workspacesDir,
    ).toBe("/data/talkide/be/workspaces-8c8eb285c8b9");
    // A relative XDG_DATA_HOME is invalid by the XDG spec and ignored.
    expect(
      loadConfig({ HOME: "/home/anna", XDG_DATA_HOME: "data" }, "/srv/app").workspacesDir,
    ).toBe("/home/anna/.local/share/talkide/be/workspaces-8c8eb285c8b9");
  });

  it("reads every variable, resolving relative paths against the working directory", () => {
    const config = loadConfig(
      {
        TALKIDE_HOST: "0.0.0.0",
        TALKIDE_PORT: "8000",
        TALKIDE_HTTP_HEADERS_TIMEOUT_MS: "2000",
        TALKIDE_HTTP_REQUEST_TIMEOUT_MS: "4000",
        TALKIDE_HTTP_MAX_CONNECTIONS_PER_ADDRESS: "0",
        TALKIDE_DATA_DIR: "state",
        TALKIDE_WORKSPACES_DIR: "/var/projects",
        DATABASE_URL: "postgres://u@localhost/db",
        TALKIDE_CLAUDE_PATH: "bin/claude",
        TALKIDE_CLAUDE_CONFIG_DIR: "/etc/claude",
        TALKIDE_CONTEXT_LAYOUT: "single",
        TALKIDE_TURN_TIMEOUT_MS: "60000",
        TALKIDE_TURN_QUEUE_LIMIT: "0",
        TALKIDE_INSTANCE_LEASE_SECONDS: "12",
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_BASE_URL: "https://proxy.example.com",
        TALKIDE_CLAUDE_ENV_PASSTHROUGH: "HTTPS_PROXY, NO_PROXY",
        TALKIDE_PROMPT_CACHE_TTL: "5m",
        TALKIDE_DEMO: "off",
        TALKIDE_LOG_LEVEL: "warn",
        TALKIDE_CLAUDE_PERMISSION_MODE: "plan",
        TALKIDE_CLAUDE_ALLOWED_TOOLS: "Bash(npm test:*), Read",
        TALKIDE_PUBLIC_URL: "https://talkide.example.com/",
        TALKIDE_SESSION_IDLE_HOURS: "8",
        TALKIDE_TOKEN_LIFETIME_DAYS: "30",
        TALKIDE_SANDBOX_ALLOWED_HOSTS: "registry.npmjs.org, *.example.com",
        TALKIDE_PROJECTS_PER_USER: "5",
        TALKIDE_OWNER_TURN_SHARE: "25",
      },
      "/srv/app",
    );
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 8000,
      publicUrl: "https://talkide.example.com",
      sessionIdleHours: 8,
      tokenLifetimeDays: 30,
      connectionLimits: {
        headersTimeoutMs: 2000,
        requestTimeoutMs: 4000,
        keepAliveTimeoutMs: 72_000,
        maxConnectionsPerAddress: 0,
      },
      dataDir: join("/srv/app", "state"),
      workspacesDir: "/var/projects",
      databaseUrl: "postgres://u@localhost/db",
      claudePath: "/srv/app/bin/claude",
      claudeConfigDir: "/etc/claude",
      claudePermissionMode: "plan",
      claudeAllowedTools: ["Bash(npm test:*)", "Read"],
      sandboxAllowedHosts: ["registry.npmjs.org", "*.example.com"],
      projectsPerUser: 5,
      ownerTurnShare: 25,
      contextLayout: "single",
      turnTimeoutMs: 60000,
      turnQueueLimit: 0,
      instanceLeaseSeconds: 12,
      anthropicApiKey: "sk-test",
      anthropicBaseUrl: "https://proxy.example.com",
      claudeEnvPassthrough: ["HTTPS_PROXY", "NO_PROXY"],
      promptCacheTtl: "5m",
      demo: false,
      logLevel: "warn",
    });
    // The public URL is an origin: a path or a query would break every link built on it.
    for (const bad of ["ftp://x.example", "https://x.example/app", "https://x.example/?a=1", "x"]) {
      expect(() => loadConfig({ TALKIDE_PUBLIC_URL: bad }, "/srv"), bad).toThrow(ConfigError);
    }
    // A bare command name is looked up on PATH at spawn time.
    expect(loadConfig({ TALKIDE_CLAUDE_PATH: "claude" }, "/srv").claudePath).toBe("claude");
    // Blank means unset.
    expect(loadConfig({ TALKIDE_PORT: " ", DATABASE_URL: "" }, "/srv")).toMatchObject({
      port: 9090,
      databaseUrl: null,
    });
  });

  it("refuses a bad host list, project quota, turn share or connection limit", () => {
    for (const [variable, value] of [
      ["TALKIDE_SANDBOX_ALLOWED_HOSTS", "https://example.com/"],
      ["TALKIDE_PROJECTS_PER_USER", "0"],
      ["TALKIDE_OWNER_TURN_SHARE", "101"],
      ["TALKIDE_HTTP_HEADERS_TIMEOUT_MS", "10"],
      ["TALKIDE_HTTP_MAX_CONNECTIONS_PER_ADDRESS", "-1"],
    ] as const) {
      expect(() => loadConfig({ [variable]: value }, "/srv"), variable).toThrow(
        expect.objectContaining({
          code: "invalid_config",
          issues: [expect.objectContaining({ variable })],
        }) as Error,
      );
    }
  });

  it("names every bad variable and never repeats a value", () => {
    const secret = "mysql://root:hunter2@db/x";
    let error: unknown;
    try {
      loadConfig({
        TALKIDE_PORT: "70000",
        DATABASE_URL: secret,
        TALKIDE_CONTEXT_LAYOUT: "double",
        TALKIDE_DEMO: "maybe",
        TALKIDE_TURN_TIMEOUT_MS: "soon",
        TALKIDE_INSTANCE_LEASE_SECONDS: "60",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.code).toBe("invalid_config");
    expect(configError.issues.map((i) => i.variable).sort()).toEqual([
      "DATABASE_URL",
      "TALKIDE_CONTEXT_LAYOUT",
      "TALKIDE_DEMO",
      "TALKIDE_INSTANCE_LEASE_SECONDS",
      "TALKIDE_PORT",
      "TALKIDE_TURN_TIMEOUT_MS",
    ]);
    expect(configError.message).not.toContain("hunter2");
    expect(configError.message).toContain("apps/be/README.md");
    expect(() => loadConfig({ TALKIDE_CLAUDE_ENV_PASSTHROUGH: "OK,not valid" })).toThrow(
      /TALKIDE_CLAUDE_ENV_PASSTHROUGH/,
    );
  });

  it.each(["1H", "60m", "1", "off"])(
    "refuses TALKIDE_PROMPT_CACHE_TTL=%s, saying which values it takes",
    (value) => {
      let caught: unknown;
      try {
        loadConfig({ TALKIDE_PROMPT_CACHE_TTL: value }, "/srv");
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).issues.map((i) => i.variable)).toEqual([
        "TALKIDE_PROMPT_CACHE_TTL",
      ]);
      expect((caught as ConfigError).message).toContain("must be 5m or 1h");
    },
  );
});

describe("checkModelAccess", () => {
  const check = (env: NodeJS.ProcessEnv): string | null => {
    try {
      checkModelAccess(loadConfig(env, "/srv"), env);
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).message;
    }
  };
  const url = "https://llm-gateway.example.com";

  it("refuses ANTHROPIC_BASE_URL without a key, saying what to do and never the URL", () => {
    const message = check({ ANTHROPIC_BASE_URL: url });
    expect(message).toContain("ANTHROPIC_API_KEY: must be set when ANTHROPIC_BASE_URL is");
    expect(message).toContain("Not logged in");
    expect(message).toContain("unset ANTHROPIC_BASE_URL");
    expect(message).not.toContain("llm-gateway");
  });

  it.each([
    [{}],
    [{ ANTHROPIC_API_KEY: "sk-test" }],
    [{ ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: url }],
    [
      {
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_AUTH_TOKEN: "bearer",
        TALKIDE_CLAUDE_ENV_PASSTHROUGH: "ANTHROPIC_AUTH_TOKEN",
      },
    ],
  ])("accepts %j (the demo model, a key, or a handed-through auth token)", (env) => {
    expect(check(env)).toBeNull();
  });

  it("does not count an auth token that is not handed to the CLI", () => {
    expect(check({ ANTHROPIC_BASE_URL: url, ANTHROPIC_AUTH_TOKEN: "bearer" })).not.toBeNull();
  });
});
