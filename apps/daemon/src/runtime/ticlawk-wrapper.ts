import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Writes `<dataDir>/bin/ticlawk`, the command agents use to talk to people and to each
 * other. The daemon puts `<dataDir>/bin` first on every turn's PATH, so `ticlawk` in an
 * agent's shell is always this one, whatever else the machine has installed.
 *
 * The wrapper runs the CLI of this daemon: from the TypeScript source when the daemon runs
 * from source (with the workspace's source condition), otherwise the built JavaScript. It
 * decides when it runs, not when it is written, so a CLI that appears later is picked up
 * without restarting the daemon. When neither exists it says so, as JSON on stderr (the
 * CLI's own error format), and exits 127.
 */
export async function writeTiclawkWrapper(
  dataDir: string,
  entries: { readonly source: string; readonly built: string } = TICLAWK_ENTRIES,
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

/** Where the CLI's entry point is, from source and built. */
export const TICLAWK_ENTRIES = {
  source: fileURLToPath(new URL("../ticlawk/main.ts", import.meta.url)),
  built: fileURLToPath(new URL("../ticlawk/main.js", import.meta.url)),
} as const;

export function ticlawkWrapperScript(
  entries: { readonly source: string; readonly built: string } = TICLAWK_ENTRIES,
): string {
  const node = shellQuote(process.execPath);
  const source = shellQuote(entries.source);
  const built = shellQuote(entries.built);
  const unavailable = JSON.stringify({
    error: {
      code: "ticlawk_unavailable",
      message:
        "The ticlawk command is not part of this daemon build; no message hub CLI is installed.",
    },
  });
  return [
    "#!/bin/sh",
    "# Written by talkide-daemon on start; do not edit (it is rewritten).",
    `if [ -f ${source} ]; then exec ${node} --conditions=@talkide/source ${source} "$@"; fi`,
    `if [ -f ${built} ]; then exec ${node} ${built} "$@"; fi`,
    `printf '%s\\n' ${shellQuote(unavailable)} >&2`,
    "exit 127",
    "",
  ].join("\n");
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
