import { execFile } from "node:child_process";
import { promisify } from "node:util";

/**
 * Claude Code's own sandbox for the commands the agent runs (Bash): on Linux bubblewrap
 * (filesystem, and new user, PID, network and IPC namespaces) with socat relaying the allowed
 * network through the CLI's proxy. Every host that allows a tool which executes code runs the
 * CLI with these settings (issue 49): writes only in the workspace (and the sandbox's own
 * temporary directory), no reads of what `denyRead` lists (the service's data, the other
 * workspaces, the CLI's configuration) except the workspace itself, and no network but the
 * hosts the operator lists. There is no way out: no unsandboxed fallback, and the CLI refuses
 * to run a command at all when the sandbox cannot start.
 */
export interface SandboxPolicy {
  /** Directories no command may read (the service's data dir, its workspaces dir, …). */
  readonly denyRead: readonly string[];
  /**
   * Paths inside `denyRead` that commands may still read, besides the workspace (a file or a
   * directory: the daemon's `ticlawk` wrapper and the session's turn-env file).
   */
  readonly allowRead?: readonly string[];
  /**
   * Hosts commands may reach (through the CLI's proxy); empty: none. `host:port` allows that
   * one port only (`127.0.0.1:7421`: the message service, and no other loopback port).
   */
  readonly allowedHosts: readonly string[];
}

/** A tool rule that lets the agent run code: `Bash`, `Bash(npm test:*)`, `Bash(*)`, … */
export function runsCode(rule: string): boolean {
  return /^\s*(Bash|PowerShell)(\(|\s*$)/.test(rule);
}

/**
 * The settings (`--settings <json>`) of a turn in `workspaceDir`: the sandbox, on, with no
 * fallback, and the workspace readable even where `denyRead` covers it. Commands are still
 * allowed only by the host's tool rules (`autoAllowBashIfSandboxed` off). `strictAllowlist`
 * refuses a host that is not listed at once (the proxy answers 403); without it the proxy
 * waits for a person to approve the host, which in print mode nobody does, so the command
 * hangs until it gives up (measured with 2.1.330: apps/daemon/BENCHMARKS.md, "The sandbox").
 */
export function sandboxSettings(workspaceDir: string, policy: SandboxPolicy): object {
  return {
    sandbox: {
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
      autoAllowBashIfSandboxed: false,
      filesystem: {
        denyRead: [...policy.denyRead],
        allowRead: [workspaceDir, ...(policy.allowRead ?? [])],
      },
      network: { allowedDomains: [...policy.allowedHosts], strictAllowlist: true },
    },
  };
}

const run = promisify(execFile);

/** The Debian packages the sandbox needs on Linux, by the command each provides. */
const LINUX_REQUIREMENTS = [
  { command: "bwrap", debianPackage: "bubblewrap" },
  { command: "socat", debianPackage: "socat" },
] as const;

export class SandboxUnavailableError extends Error {
  readonly code = "sandbox_unavailable";
  constructor(message: string) {
    super(message);
    this.name = "SandboxUnavailableError";
  }
}

/**
 * Throws `SandboxUnavailableError`, saying what to install or change, when the sandbox cannot
 * run here: not Linux, bubblewrap or socat missing, or bubblewrap unable to make its
 * namespaces (a container without them, say). `why` names the setting that asked for it;
 * `otherwise` is the way out without the sandbox (null where there is none: the daemon's
 * agents always run `ticlawk`).
 */
export async function assertSandboxAvailable(
  why: string,
  env: NodeJS.ProcessEnv = process.env,
  otherwise: string | null = "remove the command-running rules",
): Promise<void> {
  const or = otherwise === null ? "" : `, or ${otherwise}`;
  if (process.platform !== "linux") {
    throw new SandboxUnavailableError(
      `${why} lets the agent run commands, which run only inside Claude Code's sandbox, and this service supports that sandbox on Linux only. Run the service on Linux${or}.`,
    );
  }
  const path = { PATH: env["PATH"] ?? "" };
  const missing: string[] = [];
  for (const { command, debianPackage } of LINUX_REQUIREMENTS) {
    try {
      await run("sh", ["-c", `command -v ${command}`], { env: path });
    } catch {
      missing.push(debianPackage);
    }
  }
  if (missing.length > 0) {
    throw new SandboxUnavailableError(
      `${why} lets the agent run commands, which run only inside Claude Code's sandbox, and it needs ${missing.join(" and ")}: install ${missing.length > 1 ? "them" : "it"} (sudo apt-get install ${missing.join(" ")}, or sh scripts/debian-packages.sh) and start again${or}.`,
    );
  }
  try {
    await run(
      "bwrap",
      ["--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--unshare-net", "true"],
      { env: path, timeout: 10_000 },
    );
  } catch (error) {
    const detail = /\S[^\n]*/.exec(String((error as { stderr?: unknown }).stderr ?? error))?.[0];
    throw new SandboxUnavailableError(
      `${why} lets the agent run commands, which run only inside Claude Code's sandbox, and bubblewrap cannot create its namespaces here (${detail}). Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or the container's seccomp/AppArmor profile)${or}.`,
    );
  }
}
