import type { SandboxPolicy } from "@talkide/claude-cli";

/**
 * What Claude Code's sandbox lets an agent's commands do (issue 49), the part every turn of
 * this daemon shares. The daemon always allows a command (`Bash(ticlawk:*)`), so every turn
 * runs with the sandbox (`sandboxSettings` of @talkide/claude-cli): writes only in the
 * workspace, and:
 *
 * - no reads of the data directory (database, admin token, turn-credential key, quarantine,
 *   every session's turn-env file), the CLI's config dir, the directories the
 *   operator adds (`TALKIDE_SANDBOX_DENY_READ`: the message service's data) and the other
 *   agents' workspaces (per turn, `turnSandboxPolicy`), except the `ticlawk` wrapper's
 *   directory and the session's own turn-env file, which `ticlawk` needs;
 * - no network but the message service's `host:port` (`TALKIDE_UPSTREAM_URL`), through the
 *   sandbox's proxy: the `ticlawk` wrapper points Node's fetch at it. Nothing else on
 *   loopback (the daemon's API, a database, the daemon's model gateway) is reachable: the
 *   token of the gateway in the CLI's environment, which commands inherit, is worthless to
 *   them (and dies with the process).
 */
export interface DaemonSandbox {
  readonly denyRead: readonly string[];
  readonly allowRead: readonly string[];
  readonly allowedHosts: readonly string[];
}

export function daemonSandbox(options: {
  readonly dataDir: string;
  readonly claudeConfigDir: string;
  /** More directories no command may read (the operator's `TALKIDE_SANDBOX_DENY_READ`). */
  readonly denyRead: readonly string[];
  readonly ticlawkBinDir: string;
  readonly upstreamUrl: string | null;
}): DaemonSandbox {
  return {
    denyRead: unique([options.dataDir, options.claudeConfigDir, ...options.denyRead]),
    allowRead: [options.ticlawkBinDir],
    allowedHosts: options.upstreamUrl === null ? [] : [hostAndPort(options.upstreamUrl)],
  };
}

/**
 * The sandbox of one turn: the other agents' workspaces denied too (the daemon's agents
 * table, read for each turn, so an agent registered later is covered), the session's own
 * turn-env file readable.
 */
export function turnSandboxPolicy(
  sandbox: DaemonSandbox,
  turn: {
    readonly workspaceDir: string;
    readonly otherWorkspaces: readonly string[];
    readonly turnEnvFile: string;
  },
): SandboxPolicy {
  const others = turn.otherWorkspaces.filter((dir) => dir !== turn.workspaceDir);
  return {
    denyRead: unique([...sandbox.denyRead, ...[...others].sort()]),
    allowRead: [...sandbox.allowRead, turn.turnEnvFile],
    allowedHosts: sandbox.allowedHosts,
  };
}

/**
 * `host:port` of a URL, the port always written out: the sandbox's proxy then lets that one
 * port through (`127.0.0.1:7421`), where a bare `127.0.0.1` would open every loopback port.
 */
export function hostAndPort(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port !== "" ? parsed.port : parsed.protocol === "https:" ? "443" : "80";
  return `${parsed.hostname}:${port}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
