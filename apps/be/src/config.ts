import { DEFAULT_TOKEN_LIFETIME_DAYS, MAX_TOKEN_LIFETIME_DAYS } from "./auth/api-tokens.ts";
import { DEFAULT_SESSION_IDLE_HOURS } from "./auth/browser-sessions.ts";
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { PROMPT_CACHE_TTLS, type PromptCacheTtl } from "@talkide/claude-cli";
import { gatewaySettingsFromEnv, type GatewaySettings } from "@talkide/gateway";
import {
  ConfigError,
  DEFAULT_CONNECTION_LIMITS,
  parseServiceEnvironment,
  type ConfigIssue,
  type ConnectionLimits,
  type LogLevel,
} from "@talkide/service-kit";
import { QUEUE_POLICY } from "@talkide/work-queue";
import { z } from "zod";

/**
 * Service configuration, read from the environment once at start. Every value has a
 * default that works on a fresh machine: the embedded database under the data directory,
 * loopback only, the platform's own port 9090.
 */
export interface Config {
  /** The address the service listens on (TALKIDE_HOST; loopback by default). */
  readonly host: string;
  readonly port: number;
  /**
   * The address people open, which every link is built on (TALKIDE_PUBLIC_URL); null: the
   * listen address (loopback by default, so links work on this machine only).
   */
  readonly publicUrl: string | null;
  /** A browser session unused this long ends by itself (TALKIDE_SESSION_IDLE_HOURS). */
  readonly sessionIdleHours: number;
  /** A new API token's default lifetime (TALKIDE_TOKEN_LIFETIME_DAYS). */
  readonly tokenLifetimeDays: number;
  /**
   * Slow clients and many connections: header and request timeouts, and how many open
   * connections one client address may hold (0: no cap; behind a reverse proxy every client
   * shares its address).
   */
  readonly connectionLimits: ConnectionLimits;
  /** Absolute. Holds the embedded database, the plugin directory and Claude's own state. */
  readonly dataDir: string;
  /**
   * Absolute. Each project gets `<workspacesDir>/project-<id>`, its own git repository. The
   * default lies under the user's data home, outside the checkout: see `defaultWorkspacesDir`.
   */
  readonly workspacesDir: string;
  /** PostgreSQL server connection string; absent means the embedded database. */
  readonly databaseUrl: string | null;
  /** The `claude` executable; null means the one from the pinned `@anthropic-ai/claude-code`. */
  readonly claudePath: string | null;
  /** Where the spawned CLI keeps sessions and settings (`CLAUDE_CONFIG_DIR`); outside every project. */
  readonly claudeConfigDir: string;
  /**
   * Claude Code's permission mode for Mara's turns. Print mode cannot ask anyone, so a tool
   * call that needs permission is simply denied; `acceptEdits` lets Mara's delegates edit
   * files in the workspace while shell commands still need `claudeAllowedTools`.
   */
  readonly claudePermissionMode: "default" | "acceptEdits" | "plan";
  /** Extra tool rules for `--allowedTools` (e.g. `Bash(npm test:*)`); empty means none. */
  readonly claudeAllowedTools: readonly string[];
  /**
   * Hosts the commands the agent runs may reach from inside the sandbox (only when a rule
   * above lets it run commands); empty: no network.
   */
  readonly sandboxAllowedHosts: readonly string[];
  readonly contextLayout: "split" | "single";
  readonly turnTimeoutMs: number;
  /**
   * The share (percent) of an instance's turn slots that the projects of one owner may hold
   * at once; their further turns wait while others' run. 100: no limit.
   */
  readonly ownerTurnShare: number;
  /** Projects one user may own (be an owner of); one more is refused with 409 `project_quota_reached`. */
  readonly projectsPerUser: number;
  /** Messages that may wait behind the running turn of one project; one more gets a 409. */
  readonly turnQueueLimit: number;
  /**
   * Seconds an instance may miss renewing a running turn's lease before that turn fails with
   * `instance_lease_expired` and the project's queue goes on, on any instance (10–30).
   */
  readonly instanceLeaseSeconds: number;
  /**
   * Claude Code processes kept alive between a project's turns ("warm"), at most; the least
   * recently used is ended first. 0 starts a process for every turn.
   */
  readonly warmProcesses: number;
  /** A warm process idle this long is ended. */
  readonly warmIdleMs: number;
  readonly anthropicApiKey: string | null;
  readonly anthropicBaseUrl: string | null;
  /** Extra environment variable names handed to the spawned CLI (e.g. HTTPS_PROXY). */
  readonly claudeEnvPassthrough: readonly string[];
  /**
   * How long the Messages API keeps the CLI's prompt cache. `1h` (the default) outlives the
   * minutes a person takes between messages; `5m` sends the CLI's own defaults unchanged.
   */
  readonly promptCacheTtl: PromptCacheTtl;
  /**
   * The LLM gateway's limits (`TALKIDE_LIMIT_*`: spend and tokens per project and per user, per
   * UTC day and month) and price table (`TALKIDE_MODEL_PRICES_FILE` over the built-in one).
   */
  readonly gateway: GatewaySettings;
  /** Create a demo user and project on the first start of an empty database. */
  readonly demo: boolean;
  readonly logLevel: LogLevel;
}

/** Where the variables are documented; every configuration error points there. */
const README = "apps/be/README.md";

const booleanFlag = (fallback: boolean) =>
  z
    .enum(["1", "0", "true", "false", "yes", "no", "on", "off"], { error: "use true or false" })
    .optional()
    .transform((v) => (v === undefined ? fallback : ["1", "true", "yes", "on"].includes(v)));

const integer = (fallback: number, min: number, max: number) =>
  z.coerce
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
    .default(fallback);

const isOriginOnly = (url: URL): boolean =>
  ["", "/"].includes(url.pathname) && url.search === "" && url.hash === "";

const envSchema = z.object({
  TALKIDE_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "must be an http:// or https:// address" })
    .refine(
      (value) => URL.canParse(value) && isOriginOnly(new URL(value)),
      "must be an origin only (scheme, host and port), with no path or query",
    )
    .optional(),
  TALKIDE_SESSION_IDLE_HOURS: integer(DEFAULT_SESSION_IDLE_HOURS, 1, 8784),
  TALKIDE_TOKEN_LIFETIME_DAYS: integer(DEFAULT_TOKEN_LIFETIME_DAYS, 1, MAX_TOKEN_LIFETIME_DAYS),
  TALKIDE_HTTP_HEADERS_TIMEOUT_MS: integer(
    DEFAULT_CONNECTION_LIMITS.headersTimeoutMs,
    100,
    600_000,
  ),
  TALKIDE_HTTP_REQUEST_TIMEOUT_MS: integer(
    DEFAULT_CONNECTION_LIMITS.requestTimeoutMs,
    100,
    3_600_000,
  ),
  TALKIDE_HTTP_MAX_CONNECTIONS_PER_ADDRESS: integer(
    DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress,
    0,
    1_000_000,
  ),
  TALKIDE_WORKSPACES_DIR: z.string().optional(),
  XDG_DATA_HOME: z.string().optional(),
  HOME: z.string().optional(),
  TALKIDE_CLAUDE_PATH: z.string().optional(),
  TALKIDE_CLAUDE_CONFIG_DIR: z.string().optional(),
  TALKIDE_CLAUDE_PERMISSION_MODE: z
    .enum(["default", "acceptEdits", "plan"], { error: "must be default, acceptEdits or plan" })
    .optional(),
  TALKIDE_CLAUDE_ALLOWED_TOOLS: z.string().optional(),
  TALKIDE_SANDBOX_ALLOWED_HOSTS: z
    .string()
    .regex(
      /^\s*(\*\.)?[A-Za-z0-9.-]+(:\d+)?(\s*,\s*(\*\.)?[A-Za-z0-9.-]+(:\d+)?)*\s*$/,
      "must be a comma-separated list of host names (a leading *. allows subdomains)",
    )
    .optional(),
  TALKIDE_CONTEXT_LAYOUT: z
    .enum(["split", "single"], { error: "must be split or single" })
    .optional(),
  TALKIDE_TURN_TIMEOUT_MS: integer(30 * 60_000, 1, 24 * 60 * 60_000),
  TALKIDE_TURN_QUEUE_LIMIT: integer(20, 0, 1000),
  TALKIDE_PROJECTS_PER_USER: integer(20, 1, 999),
  TALKIDE_OWNER_TURN_SHARE: integer(50, 1, 100),
  TALKIDE_INSTANCE_LEASE_SECONDS: integer(
    QUEUE_POLICY.leaseSeconds,
    QUEUE_POLICY.minLeaseSeconds,
    QUEUE_POLICY.maxLeaseSeconds,
  ),
  TALKIDE_WARM_PROCESSES: integer(4, 0, 256),
  TALKIDE_WARM_IDLE_SECONDS: integer(600, 1, 7 * 24 * 3600),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  TALKIDE_CLAUDE_ENV_PASSTHROUGH: z.string().optional(),
  TALKIDE_PROMPT_CACHE_TTL: z.enum(PROMPT_CACHE_TTLS, { error: "must be 5m or 1h" }).default("1h"),
  TALKIDE_DEMO: booleanFlag(true),
});

/**
 * `$XDG_DATA_HOME/talkide/be/workspaces-<12 hex of the data dir's sha256>` (XDG_DATA_HOME
 * defaults to `~/.local/share`). Workspaces must not sit inside the checkout: Claude Code would
 * load the repository's own instruction files and see its git work tree (contract section 6).
 * The data dir's hash keeps two installations (or a reset database, whose project ids start
 * at 1 again) from sharing workspaces.
 */
export function defaultWorkspacesDir(
  dataDir: string,
  xdgDataHome: string | undefined,
  home: string | undefined,
): string {
  const dataHome =
    xdgDataHome !== undefined && isAbsolute(xdgDataHome)
      ? xdgDataHome
      : join(home ?? homedir(), ".local", "share");
  const tag = createHash("sha256").update(dataDir).digest("hex").slice(0, 12);
  return join(dataHome, "talkide", "be", `workspaces-${tag}`);
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** A bare command name (`claude`) is looked up on PATH at spawn; a path is made absolute. */
function claudePathFrom(value: string | undefined, cwd: string): string | null {
  if (value === undefined) return null;
  return value.includes("/") ? absolute(value, cwd) : value;
}

/**
 * Reads the configuration from an environment (a blank variable counts as unset, values are
 * trimmed). `cwd` anchors relative paths (the data directory defaults to `.data/be` under
 * it). Throws ConfigError naming each bad variable; the message never repeats a value, which
 * may be a secret.
 */
export function loadConfig(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): Config {
  // Both parts read first, so that one refusal names every bad variable.
  const issues: ConfigIssue[] = [];
  const read = <T>(part: () => T): T | undefined => {
    try {
      return part();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
      return undefined;
    }
  };
  const parsed = read(() =>
    parseServiceEnvironment(envSchema, env, {
      variables: {
        host: "TALKIDE_HOST",
        port: "TALKIDE_PORT",
        dataDir: "TALKIDE_DATA_DIR",
        databaseUrl: "DATABASE_URL",
        logLevel: "TALKIDE_LOG_LEVEL",
      },
      defaults: { port: 9090, dataDir: join(".data", "be") },
      readme: README,
    }),
  );
  const gateway = read(() => gatewaySettingsFromEnv(env, { readme: README, cwd }));
  const [first, ...more] = issues;
  if (first !== undefined) throw new ConfigError([first, ...more], README);
  if (parsed === undefined || gateway === undefined) throw new Error("unreachable");
  const { settings, values: e } = parsed;
  // As given when absolute (the default workspaces directory is named after this exact text).
  const dataDir = absolute(settings.dataDir, cwd);
  const passthrough = (e.TALKIDE_CLAUDE_ENV_PASSTHROUGH ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const badName = passthrough.find((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
  if (badName !== undefined) {
    throw new ConfigError(
      [
        {
          variable: "TALKIDE_CLAUDE_ENV_PASSTHROUGH",
          message: "must be a comma-separated list of environment variable names",
        },
      ],
      README,
    );
  }
  return {
    host: settings.host,
    port: settings.port,
    publicUrl: e.TALKIDE_PUBLIC_URL === undefined ? null : new URL(e.TALKIDE_PUBLIC_URL).origin,
    sessionIdleHours: e.TALKIDE_SESSION_IDLE_HOURS,
    tokenLifetimeDays: e.TALKIDE_TOKEN_LIFETIME_DAYS,
    connectionLimits: {
      ...DEFAULT_CONNECTION_LIMITS,
      headersTimeoutMs: e.TALKIDE_HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.TALKIDE_HTTP_REQUEST_TIMEOUT_MS,
      maxConnectionsPerAddress: e.TALKIDE_HTTP_MAX_CONNECTIONS_PER_ADDRESS,
    },
    dataDir,
    workspacesDir:
      e.TALKIDE_WORKSPACES_DIR === undefined
        ? defaultWorkspacesDir(dataDir, e.XDG_DATA_HOME, e.HOME)
        : absolute(e.TALKIDE_WORKSPACES_DIR, cwd),
    databaseUrl: settings.databaseUrl,
    claudePath: claudePathFrom(e.TALKIDE_CLAUDE_PATH, cwd),
    claudeConfigDir: absolute(e.TALKIDE_CLAUDE_CONFIG_DIR ?? join(dataDir, "claude"), cwd),
    claudePermissionMode: e.TALKIDE_CLAUDE_PERMISSION_MODE ?? "acceptEdits",
    claudeAllowedTools: (e.TALKIDE_CLAUDE_ALLOWED_TOOLS ?? "")
      .split(",")
      .map((rule) => rule.trim())
      .filter((rule) => rule !== ""),
    sandboxAllowedHosts: (e.TALKIDE_SANDBOX_ALLOWED_HOSTS ?? "")
      .split(",")
      .map((host) => host.trim())
      .filter((host) => host !== ""),
    contextLayout: e.TALKIDE_CONTEXT_LAYOUT ?? "split",
    turnTimeoutMs: e.TALKIDE_TURN_TIMEOUT_MS,
    turnQueueLimit: e.TALKIDE_TURN_QUEUE_LIMIT,
    projectsPerUser: e.TALKIDE_PROJECTS_PER_USER,
    ownerTurnShare: e.TALKIDE_OWNER_TURN_SHARE,
    instanceLeaseSeconds: e.TALKIDE_INSTANCE_LEASE_SECONDS,
    warmProcesses: e.TALKIDE_WARM_PROCESSES,
    warmIdleMs: e.TALKIDE_WARM_IDLE_SECONDS * 1000,
    anthropicApiKey: e.ANTHROPIC_API_KEY ?? null,
    anthropicBaseUrl: e.ANTHROPIC_BASE_URL ?? null,
    claudeEnvPassthrough: passthrough,
    promptCacheTtl: e.TALKIDE_PROMPT_CACHE_TTL,
    gateway,
    demo: e.TALKIDE_DEMO,
    logLevel: settings.logLevel,
  };
}

/**
 * `serve` refuses to start when ANTHROPIC_BASE_URL is set without a way to authenticate
 * there. The spawned CLI would then try its interactive login and fail every turn with
 * "Not logged in · Please run /login", which a service operator cannot act on. Starting the
 * local demo model instead would silently ignore the URL the operator chose, so a clear
 * refusal at start is the useful answer. `ANTHROPIC_AUTH_TOKEN` handed through
 * (TALKIDE_CLAUDE_ENV_PASSTHROUGH) counts as a way to authenticate.
 */
export function checkModelAccess(config: Config, env: NodeJS.ProcessEnv): void {
  if (config.anthropicBaseUrl === null || config.anthropicApiKey !== null) return;
  const authToken = env.ANTHROPIC_AUTH_TOKEN?.trim() ?? "";
  if (config.claudeEnvPassthrough.includes("ANTHROPIC_AUTH_TOKEN") && authToken !== "") return;
  throw new ConfigError(
    [
      {
        variable: "ANTHROPIC_API_KEY",
        message:
          "must be set when ANTHROPIC_BASE_URL is, or every turn fails with Claude Code's " +
          "“Not logged in”: set the key that endpoint expects (any non-empty value if it " +
          "checks none), or unset ANTHROPIC_BASE_URL to get the local demo model",
      },
    ],
    README,
  );
}
