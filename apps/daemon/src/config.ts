import { hostname } from "node:os";
import { delimiter, resolve } from "node:path";
import { z } from "zod";
import { PROMPT_CACHE_TTLS, type PromptCacheTtl } from "@talkide/claude-cli";
import { gatewaySettingsFromEnv, type GatewaySettings } from "@talkide/gateway";
import { parseServiceEnvironment, type LogLevel } from "@talkide/service-kit";
import { isBlank } from "@talkide/text";
import { QUEUE_POLICY } from "@talkide/work-queue";

/**
 * The daemon's configuration, read from the environment once at start.
 *
 * The default port is neither of the platform's own ports (9090 backend, 5200 frontend) nor
 * in the ranges derived for projects (8091–9089, 5201–6199), so the daemon never competes
 * with a project it serves.
 */
export const DEFAULT_PORT = 7420;

const positiveInt = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .positive(`${name} must be greater than zero`);

const LEASE_RANGE = `TALKIDE_DAEMON_LEASE_SECONDS must be a whole number from ${QUEUE_POLICY.minLeaseSeconds} to ${QUEUE_POLICY.maxLeaseSeconds}`;

const envSchema = z.object({
  TALKIDE_DAEMON_CONCURRENCY: positiveInt("TALKIDE_DAEMON_CONCURRENCY").default(4),
  TALKIDE_DAEMON_TURN_TIMEOUT_MS: positiveInt("TALKIDE_DAEMON_TURN_TIMEOUT_MS").default(
    30 * 60_000,
  ),
  TALKIDE_DAEMON_MAX_ATTEMPTS: positiveInt("TALKIDE_DAEMON_MAX_ATTEMPTS").default(3),
  TALKIDE_DAEMON_WARM_PROCESSES: z.coerce
    .number({ error: "TALKIDE_DAEMON_WARM_PROCESSES must be a whole number" })
    .int("TALKIDE_DAEMON_WARM_PROCESSES must be a whole number")
    .min(0, "TALKIDE_DAEMON_WARM_PROCESSES must be 0 or more (0 runs every turn cold)")
    .max(256, "TALKIDE_DAEMON_WARM_PROCESSES must be at most 256")
    .default(4),
  TALKIDE_DAEMON_WARM_IDLE_SECONDS: positiveInt("TALKIDE_DAEMON_WARM_IDLE_SECONDS")
    .max(7 * 24 * 3600, "TALKIDE_DAEMON_WARM_IDLE_SECONDS must be at most a week")
    .default(600),
  TALKIDE_DAEMON_LEASE_SECONDS: z.coerce
    .number()
    .int(LEASE_RANGE)
    .min(QUEUE_POLICY.minLeaseSeconds, LEASE_RANGE)
    .max(QUEUE_POLICY.maxLeaseSeconds, LEASE_RANGE)
    .default(QUEUE_POLICY.leaseSeconds),
  TALKIDE_CLAUDE_PATH: z.string().min(1).default("claude"),
  TALKIDE_CLAUDE_CONFIG_DIR: z.string().min(1).optional(),
  TALKIDE_CLAUDE_EXTRA_ARGS: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({
          code: "custom",
          message: 'must be a JSON array of strings, e.g. ["--model","opus"]',
        });
        return z.NEVER;
      }
    })
    .pipe(
      z.array(z.string().min(1, "must not hold empty arguments"), {
        error: 'must be a JSON array of strings, e.g. ["--model","opus"]',
      }),
    )
    .default([]),
  TALKIDE_SANDBOX_DENY_READ: z.string().optional(),
  TALKIDE_PROMPT_CACHE_TTL: z
    .enum(PROMPT_CACHE_TTLS, { error: "TALKIDE_PROMPT_CACHE_TTL must be 5m or 1h" })
    .default("1h"),
  TALKIDE_HOST_ID: z
    .string()
    .regex(
      /^[\p{L}\p{N}._-]{1,64}$/u,
      "TALKIDE_HOST_ID must be 1–64 letters, digits, '.', '_' or '-'",
    )
    .optional(),
  TALKIDE_UPSTREAM_URL: z
    .url({
      protocol: /^https?$/,
      error: "TALKIDE_UPSTREAM_URL must be an http:// or https:// URL",
    })
    .optional(),
  TALKIDE_TICLAWK_ENTRY: z.string().min(1).optional(),
});

export interface DaemonConfig {
  readonly host: string;
  /** 0 asks the operating system for a free port (tests, benchmarks). */
  readonly port: number;
  /** Absolute. Holds the embedded database, the admin token and the `ticlawk` wrapper. */
  readonly dataDir: string;
  /** When set, PostgreSQL server; otherwise the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | null;
  /** How many turns may run at the same time, across all agents and conversations. */
  readonly concurrency: number;
  readonly turnTimeoutMs: number;
  /** How many times a delivery may be started before an interruption fails it for good. */
  readonly maxAttempts: number;
  /**
   * Claude Code processes kept alive between a conversation's turns ("warm"), at most; the
   * least recently used is ended first. 0 starts a process for every turn.
   */
  readonly warmProcesses: number;
  /** A warm process idle this long is ended. */
  readonly warmIdleMs: number;
  /**
   * Seconds this daemon may go without renewing the lease of a running turn before any daemon
   * on the same database fails that turn (`instance_lease_expired`) and its lane goes on.
   */
  readonly leaseSeconds: number;
  readonly claudePath: string;
  /**
   * Absolute. `CLAUDE_CONFIG_DIR` of every turn: the daemon's own (sessions, settings), never
   * the operator's `~/.claude`, whose instructions would reach every agent.
   */
  readonly claudeConfigDir: string;
  /**
   * Appended to every turn's argv after the daemon's own extra arguments (and its sandbox
   * settings). A command-running rule added here runs in the same sandbox as `ticlawk`.
   */
  readonly claudeExtraArgs: readonly string[];
  /**
   * Absolute. Directories no command an agent runs may read, besides the data directory, the
   * CLI's config dir and the other agents' workspaces, which the daemon denies itself: the
   * message service's data (its admin token), say. `TALKIDE_SANDBOX_DENY_READ`, separated by
   * `:` as in PATH.
   */
  readonly sandboxDenyRead: readonly string[];
  /**
   * How long the Messages API keeps every turn's prompt cache. `1h` (the default) outlives the
   * minutes between a conversation's messages; `5m` sends the CLI's own defaults unchanged.
   */
  readonly promptCacheTtl: PromptCacheTtl;
  readonly hostId: string;
  /**
   * The message service that pushes deliveries, as its agents' `ticlawk` reaches it. When
   * set, every turn gets `TICLAWK_HUB_URL` (this URL) and `TICLAWK_TOKEN` (a credential of
   * that one turn, which the service checks at `POST /v1/turn-credentials/verify`).
   */
  readonly upstreamUrl: string | null;
  /**
   * Absolute. The entry point of the message service's `ticlawk` CLI that the wrapper in
   * `<dataDir>/bin` runs (`.ts`: from source with the workspace's source condition). Without
   * it, the wrapper answers `ticlawk_unavailable`.
   */
  readonly ticlawkEntry: string | null;
  /**
   * The model gateway's limits (`TALKIDE_LIMIT_*`) and price table (built in, or laid over by
   * `TALKIDE_MODEL_PRICES_FILE`): see "The model gateway" in the README.
   */
  readonly gateway: GatewaySettings;
  readonly logLevel: LogLevel;
}

/** Reads the configuration; an empty variable counts as unset. Throws `ConfigError`. */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd: string = process.cwd(),
): DaemonConfig {
  const { settings, values: v } = parseServiceEnvironment(envSchema, env, {
    variables: {
      host: "TALKIDE_DAEMON_HOST",
      port: "TALKIDE_DAEMON_PORT",
      dataDir: "TALKIDE_DAEMON_DATA_DIR",
      databaseUrl: "DATABASE_URL",
      logLevel: "TALKIDE_DAEMON_LOG_LEVEL",
    },
    defaults: { port: DEFAULT_PORT, dataDir: ".data/daemon" },
  });
  return {
    host: settings.host,
    port: settings.port,
    dataDir: resolve(cwd, settings.dataDir),
    databaseUrl: settings.databaseUrl,
    concurrency: v.TALKIDE_DAEMON_CONCURRENCY,
    turnTimeoutMs: v.TALKIDE_DAEMON_TURN_TIMEOUT_MS,
    maxAttempts: v.TALKIDE_DAEMON_MAX_ATTEMPTS,
    warmProcesses: v.TALKIDE_DAEMON_WARM_PROCESSES,
    warmIdleMs: v.TALKIDE_DAEMON_WARM_IDLE_SECONDS * 1000,
    leaseSeconds: v.TALKIDE_DAEMON_LEASE_SECONDS,
    claudePath: v.TALKIDE_CLAUDE_PATH,
    claudeConfigDir: resolve(
      cwd,
      v.TALKIDE_CLAUDE_CONFIG_DIR ?? resolve(cwd, settings.dataDir, "claude"),
    ),
    claudeExtraArgs: v.TALKIDE_CLAUDE_EXTRA_ARGS,
    sandboxDenyRead: (v.TALKIDE_SANDBOX_DENY_READ ?? "")
      .split(delimiter)
      .filter((dir) => !isBlank(dir))
      .map((dir) => resolve(cwd, dir)),
    promptCacheTtl: v.TALKIDE_PROMPT_CACHE_TTL,
    hostId: v.TALKIDE_HOST_ID ?? sanitizeHostId(hostname()),
    upstreamUrl: v.TALKIDE_UPSTREAM_URL?.replace(/\/+$/, "") ?? null,
    ticlawkEntry:
      v.TALKIDE_TICLAWK_ENTRY === undefined ? null : resolve(cwd, v.TALKIDE_TICLAWK_ENTRY),
    gateway: gatewaySettingsFromEnv(env, { readme: "apps/daemon/README.md", cwd }),
    logLevel: settings.logLevel,
  };
}

/** A host name can hold characters outside the safe charset; keep what is safe. */
function sanitizeHostId(name: string): string {
  const safe = name.replace(/[^\p{L}\p{N}._-]/gu, "-").slice(0, 64);
  return safe === "" ? "localhost" : safe;
}
