import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Writes `<dataDir>/bin/ticlawk`, the command agents use to talk to people and to each
 * other. The daemon puts `<dataDir>/bin` first on every turn's PATH, so `ticlawk` in an
 * agent's shell is always this one, whatever else the machine has installed.
 *
 * The CLI belongs to the message service (`TALKIDE_TICLAWK_ENTRY` names its entry point): a
 * TypeScript source runs with the workspace's source condition, built JavaScript as it is.
 * The wrapper decides when it runs, not when it is written, so a CLI that appears later is
 * picked up without restarting the daemon. When neither exists it says so, as JSON on
 * stderr (the CLI's own error format), and exits 127.
 *
 * Before that it sources `TICLAWK_TURN_ENV_FILE` when set (turn-env-file.ts): a conversation's
 * kept-alive Claude Code process carries the environment of the turn that started it, and the
 * file holds the message, reply target, turn id and credentials of the turn running now.
 *
 * Inside Claude Code's sandbox (which sets `SANDBOX_RUNTIME=1`) a command has a network of its
 * own: the message service is reached only through the sandbox's proxy, which lets its
 * `host:port` through and nothing else (agent-sandbox.ts). The wrapper then turns on Node's
 * proxy support for the CLI's fetch (`NODE_USE_ENV_PROXY=1`, which reads the `HTTP_PROXY` /
 * `HTTPS_PROXY` the sandbox sets) and drops the sandbox's `NO_PROXY`, which lists loopback
 * and would send a loopback request past the proxy into the empty network. Outside the
 * sandbox (a person running it by hand) it changes nothing.
 */
export async function writeTiclawkWrapper(
  dataDir: string,
  entries: TiclawkEntries,
): Promise<{ binDir: string; path: string }> {
  const binDir = join(dataDir, "bin");
  await mkdir(binDir, { recursive: true });
  const path = join(binDir, "ticlawk");
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, ticlawkWrapperScript(entries), { mode: 0o755 });
  await chmod(temp, 0o755);
  await rename(temp, path);
  return { binDir, path };
}

/** Where the CLI's entry point is, as source and as built JavaScript ("" when there is none). */
export interface TiclawkEntries {
  readonly source: string;
  readonly built: string;
}

/**
 * The daemon's default: no CLI (the message service provides it), so the wrapper itself
 * answers with `ticlawk_unavailable`.
 */
export const TICLAWK_ENTRIES: TiclawkEntries = { source: "", built: "" };

/** The entries of a configured entry point (`TALKIDE_TICLAWK_ENTRY`); none without one. */
export function ticlawkEntries(entry: string | null): TiclawkEntries {
  if (entry === null) return TICLAWK_ENTRIES;
  return entry.endsWith(".ts") ? { source: entry, built: "" } : { source: "", built: entry };
}

function ticlawkWrapperScript(entries: TiclawkEntries): string {
  const node = shellQuote(process.execPath);
  const source = shellQuote(entries.source);
  const built = shellQuote(entries.built);
  const unavailable = JSON.stringify({
    error: {
      code: "ticlawk_unavailable",
      message:
        "No ticlawk command is configured for this daemon (TALKIDE_TICLAWK_ENTRY names the message service's CLI).",
    },
  });
  return [
    "#!/bin/sh",
    "# Written by talkide-daemon on start; do not edit (it is rewritten).",
    "# The current turn's values: a kept-alive Claude Code process has the first turn's.",
    'if [ -n "${TICLAWK_TURN_ENV_FILE:-}" ] && [ -f "$TICLAWK_TURN_ENV_FILE" ]; then . "$TICLAWK_TURN_ENV_FILE"; fi',
    "# In Claude Code's sandbox: the message service only through the sandbox's proxy.",
    'if [ "${SANDBOX_RUNTIME:-}" = 1 ]; then export NODE_USE_ENV_PROXY=1; unset NO_PROXY no_proxy; fi',
    `if [ -f ${source} ]; then exec ${node} --conditions=@talkide/source ${source} "$@"; fi`,
    `if [ -f ${built} ]; then exec ${node} ${built} "$@"; fi`,
    `printf '%s\\n' ${shellQuote(unavailable)} >&2`,
    "exit 127",
    "",
  ].join("\n");
}

/**
 * Whether this Node's fetch honours `HTTP_PROXY` under `NODE_USE_ENV_PROXY=1` (Node 24, and
 * 22 from 22.21), which the wrapper relies on inside the sandbox.
 */
export function fetchUsesEnvProxy(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major >= 24 || (major === 22 && minor >= 21);
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
