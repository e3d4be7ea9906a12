/**
 * The complete environment of a spawned `claude`, but for its gateway credential: the LLM
 * gateway's URL and the process's own token are added per process (`ColdStart.credential`).
 * Nothing is inherited wholesale: the service's own environment may hold a database URL with a
 * password or other secrets, and whatever the CLI gets, the agent's tools (Bash) can read.
 */
export interface ClaudeEnvOptions {
  readonly claudeConfigDir: string;
  /** The CLI's TMPDIR: it leaves sockets and scratch files there, which stay out of /tmp. */
  readonly tmpDir: string;
  /** Names of further variables to copy from the service's environment. */
  readonly passthrough: readonly string[];
  readonly parentEnv: NodeJS.ProcessEnv;
}

/**
 * The provider's address and credentials are the gateway's alone: never handed through, even
 * when an operator lists them (the gateway takes `ANTHROPIC_AUTH_TOKEN` from there instead).
 */
const GATEWAY_ONLY = new Set(["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"]);

/** Basic process variables a CLI needs to find programs, a home, a temp dir and a locale. */
const BASE_VARIABLES = ["PATH", "HOME", "LANG", "LC_ALL", "TZ"] as const;

export function claudeEnvironment(options: ClaudeEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  const copy = (name: string): void => {
    const value = options.parentEnv[name];
    if (value !== undefined) env[name] = value;
  };
  for (const name of BASE_VARIABLES) copy(name);
  for (const name of options.passthrough) if (!GATEWAY_ONLY.has(name)) copy(name);
  // Claude Code keeps sessions, settings and its user-level CLAUDE.md here: a directory of the
  // service (outside every project), so the operator's own ~/.claude never joins the context.
  env.CLAUDE_CONFIG_DIR = options.claudeConfigDir;
  env.TMPDIR = options.tmpDir;
  // No update checks, telemetry or error reporting from a server process.
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1";
  env.DISABLE_AUTOUPDATER = "1";
  env.DISABLE_TELEMETRY = "1";
  env.DISABLE_ERROR_REPORTING = "1";
  return env;
}
