import { describe, expect, it } from "vitest";
import { ConfigError } from "@talkide/service-kit";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_LIMITS, DEFAULT_PRICES, limitSettings } from "@talkide/gateway";
import { makeTempDir, removeDir } from "@talkide/service-kit/testing";
import { DEFAULT_PORT, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("has loopback, a port off the platform's and the projects' ranges, and a data dir under cwd by default", () => {
    const config = loadConfig({}, "/srv/app");
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: DEFAULT_PORT,
      dataDir: "/srv/app/.data/daemon",
      databaseUrl: null,
      concurrency: 4,
      turnTimeoutMs: 1_800_000,
      maxAttempts: 3,
      leaseSeconds: 20,
      claudePath: "claude",
      claudeConfigDir: "/srv/app/.data/daemon/claude",
      claudeExtraArgs: [],
      sandboxDenyRead: [],
      promptCacheTtl: "1h",
      gateway: { limits: DEFAULT_LIMITS, prices: DEFAULT_PRICES },
      logLevel: "info",
    });
    expect([9090, 5200]).not.toContain(config.port);
    expect(config.port < 8091 || config.port > 9089).toBe(true);
    expect(config.port < 5201 || config.port > 6199).toBe(true);
  });

  it("reads every variable", () => {
    const config = loadConfig(
      {
        TALKIDE_DAEMON_HOST: "::1",
        TALKIDE_DAEMON_PORT: "0",
        TALKIDE_DAEMON_DATA_DIR: "/var/lib/talkide",
        DATABASE_URL: "postgres://u@127.0.0.1:5432/db",
        TALKIDE_DAEMON_CONCURRENCY: "8",
        TALKIDE_DAEMON_TURN_TIMEOUT_MS: "5000",
        TALKIDE_DAEMON_MAX_ATTEMPTS: "5",
        TALKIDE_DAEMON_WARM_PROCESSES: "0",
        TALKIDE_DAEMON_WARM_IDLE_SECONDS: "30",
        TALKIDE_DAEMON_LEASE_SECONDS: "12",
        TALKIDE_CLAUDE_PATH: "/opt/claude",
        TALKIDE_CLAUDE_CONFIG_DIR: "claude-state",
        TALKIDE_CLAUDE_EXTRA_ARGS: '["--model", "opus"]',
        TALKIDE_SANDBOX_DENY_READ: "/srv/hub-data::relative/dir",
        TALKIDE_PROMPT_CACHE_TTL: "5m",
        TALKIDE_HOST_ID: "box-1",
        TALKIDE_UPSTREAM_URL: "http://127.0.0.1:7421/",
        TALKIDE_TICLAWK_ENTRY: "hub/ticlawk.js",
        TALKIDE_LIMIT_USER_DAY_USD: "2.50",
        TALKIDE_LIMIT_PROJECT_MONTH_USD: "off",
        TALKIDE_LIMIT_PROJECT_DAY_TOKENS: "1000000",
        TALKIDE_DAEMON_LOG_LEVEL: "warn",
      },
      "/x",
    );
    expect(config).toEqual({
      host: "::1",
      port: 0,
      dataDir: "/var/lib/talkide",
      databaseUrl: "postgres://u@127.0.0.1:5432/db",
      concurrency: 8,
      turnTimeoutMs: 5000,
      maxAttempts: 5,
      warmProcesses: 0,
      warmIdleMs: 30_000,
      leaseSeconds: 12,
      claudePath: "/opt/claude",
      claudeConfigDir: "/x/claude-state",
      claudeExtraArgs: ["--model", "opus"],
      sandboxDenyRead: ["/srv/hub-data", "/x/relative/dir"],
      promptCacheTtl: "5m",
      hostId: "box-1",
      upstreamUrl: "http://127.0.0.1:7421",
      ticlawkEntry: "/x/hub/ticlawk.js",
      gateway: {
        limits: limitSettings({
          TALKIDE_LIMIT_USER_DAY_USD: 2.5,
          TALKIDE_LIMIT_PROJECT_MONTH_USD: null,
          TALKIDE_LIMIT_PROJECT_DAY_TOKENS: 1_000_000,
        }),
        prices: DEFAULT_PRICES,
      },
      logLevel: "warn",
    });
  });

  it("takes command-running rules: their commands run in the sandbox, as ticlawk does (issue 49)", () => {
    expect(
      loadConfig({ TALKIDE_CLAUDE_EXTRA_ARGS: '["--allowedTools", "Bash(npm test:*)"]' }, "/x")
        .claudeExtraArgs,
    ).toEqual(["--allowedTools", "Bash(npm test:*)"]);
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ DATABASE_URL: "", TALKIDE_DAEMON_PORT: " " }, "/x")).toMatchObject({
      databaseUrl: null,
      port: DEFAULT_PORT,
    });
  });

  it.each([
    ["TALKIDE_DAEMON_PORT", "70000"],
    ["TALKIDE_DAEMON_PORT", "http"],
    ["TALKIDE_DAEMON_CONCURRENCY", "0"],
    ["TALKIDE_DAEMON_TURN_TIMEOUT_MS", "1.5"],
    ["TALKIDE_DAEMON_LEASE_SECONDS", "9"],
    ["TALKIDE_DAEMON_LEASE_SECONDS", "31"],
    ["TALKIDE_DAEMON_LEASE_SECONDS", "12.5"],
    ["DATABASE_URL", "mysql://x"],
    ["TALKIDE_HOST_ID", "has space"],
    ["TALKIDE_DAEMON_LOG_LEVEL", "loud"],
    ["TALKIDE_CLAUDE_EXTRA_ARGS", "--model opus"],
    ["TALKIDE_CLAUDE_EXTRA_ARGS", '["--model", 5]'],
    ["TALKIDE_CLAUDE_EXTRA_ARGS", '[""]'],
    ["TALKIDE_UPSTREAM_URL", "127.0.0.1:7421"],
    ["TALKIDE_UPSTREAM_URL", "ftp://hub.example"],
    ["TALKIDE_PROMPT_CACHE_TTL", "1H"],
    ["TALKIDE_PROMPT_CACHE_TTL", "60m"],
    ["TALKIDE_LIMIT_USER_DAY_USD", "$20"],
    ["TALKIDE_LIMIT_PROJECT_DAY_TOKENS", "1.5"],
    ["TALKIDE_MODEL_PRICES_FILE", "/no/such/prices.json"],
  ])("refuses %s=%s, naming the variable", (variable, value) => {
    let caught: unknown;
    try {
      loadConfig({ [variable]: value }, "/x");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
    expect((caught as ConfigError).message).toContain(variable);
  });

  it("lays an operator's price file over the built-in table (TALKIDE_MODEL_PRICES_FILE, relative to cwd)", async () => {
    const dir = await makeTempDir();
    try {
      await writeFile(
        join(dir, "prices.json"),
        JSON.stringify({
          source: "our agreement",
          models: {
            "claude-opus-5-5": {
              input: 3,
              output: 15,
              cacheWrite5m: 3.75,
              cacheWrite1h: 6,
              cacheRead: 0.3,
            },
          },
        }),
      );
      const { prices } = loadConfig({ TALKIDE_MODEL_PRICES_FILE: "prices.json" }, dir).gateway;
      expect(prices.models["claude-opus-5-5"]?.input).toBe(3);
      expect(prices.source).toContain("our agreement");
    } finally {
      await removeDir(dir);
    }
  });
});
