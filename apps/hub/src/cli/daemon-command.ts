import { existsSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "@talkide/service-kit";

/**
 * How the hub starts a daemon (`talkide-hub local-loop`, and the hub's own tests): a program
 * run as a child process, never code imported into the hub, so the hub depends on no part of
 * `apps/daemon` and the two meet only over HTTP.
 */
export interface DaemonCommand {
  /** The executable: this Node for a `.ts`/`.js` entry point, else the program itself. */
  readonly command: string;
  /** Arguments before the daemon's own (`start`). */
  readonly args: readonly string[];
}

/** The variable that names the daemon's entry point, instead of the workspace's. */
export const DAEMON_BIN_VARIABLE = "TALKIDE_HUB_DAEMON_BIN";

/** Running from TypeScript sources (the workspace's source condition) or from `dist`. */
const FROM_SOURCE = import.meta.url.endsWith(".ts");

/** Where the daemon's bin lives in this repository's workspace, from source and when built. */
const WORKSPACE_DAEMON_BIN = {
  source: ["apps", "daemon", "src", "bin", "talkide-daemon.ts"],
  built: ["apps", "daemon", "dist", "bin", "talkide-daemon.js"],
} as const;

/**
 * The daemon to start: `TALKIDE_HUB_DAEMON_BIN` when set (a `talkide-daemon` program, or its
 * `.ts`/`.js` entry point; relative to `cwd`); otherwise the daemon of the workspace this hub
 * runs from (its sources when the hub runs from source, its `dist` when built); outside a
 * workspace, the installed `talkide-daemon` on the PATH.
 */
export function daemonCommand(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  fromSource: boolean = FROM_SOURCE,
): DaemonCommand {
  const configured = env[DAEMON_BIN_VARIABLE];
  if (configured !== undefined && configured !== "") {
    const entry = resolve(cwd, configured);
    if (!existsSync(entry))
      throw new CliError(
        "daemon_not_found",
        `${DAEMON_BIN_VARIABLE} names ${entry}, which does not exist: point it at the daemon's talkide-daemon.`,
      );
    return nodeOrProgram(entry);
  }
  const root = workspaceRoot(dirname(fileURLToPath(import.meta.url)));
  if (root === null) return { command: "talkide-daemon", args: [] };
  const entry = join(root, ...WORKSPACE_DAEMON_BIN[fromSource ? "source" : "built"]);
  if (!existsSync(entry))
    throw new CliError(
      "daemon_not_found",
      `No daemon at ${entry}: build the workspace (pnpm run build), or set ${DAEMON_BIN_VARIABLE} to the daemon's talkide-daemon.`,
    );
  return nodeOrProgram(entry);
}

function nodeOrProgram(entry: string): DaemonCommand {
  switch (extname(entry)) {
    case ".ts":
      return { command: process.execPath, args: ["--conditions=@talkide/source", entry] };
    case ".js":
    case ".mjs":
      return { command: process.execPath, args: [entry] };
    default:
      return { command: entry, args: [] };
  }
}

/** The nearest folder at or above `from` that holds `pnpm-workspace.yaml`, or null. */
function workspaceRoot(from: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}
