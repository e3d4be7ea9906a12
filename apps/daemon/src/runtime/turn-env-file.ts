import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";

/** Points the agent's `ticlawk` at the current turn's values (see ticlawk-wrapper.ts). */
export const TURN_ENV_FILE_VARIABLE = "TICLAWK_TURN_ENV_FILE";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Writes the values of the turn that runs now as a shell file the `ticlawk` wrapper sources
 * before it runs the CLI. A kept ("warm") Claude Code process keeps the environment it was
 * started with, which names the turn that started it; the message, reply target, turn id and
 * per-turn credentials of later turns reach `ticlawk` through this file instead. Written
 * atomically (a reader sees the old or the new one whole), readable by the daemon's user
 * only. Not flushed to disk: it is on every turn's path, and after a machine's crash no
 * process that reads it is left (the next turn writes it again). Names that are not shell
 * identifiers are refused.
 */
export async function writeTurnEnvFile(
  path: string,
  variables: Readonly<Record<string, string>>,
): Promise<void> {
  const lines = ["# Written by talkide-daemon for the turn that runs now; do not edit."];
  for (const [name, value] of Object.entries(variables)) {
    if (!NAME.test(name)) throw new TypeError(`Not a variable name: ${JSON.stringify(name)}`);
    lines.push(`export ${name}=${shellQuote(value)}`);
  }
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, `${lines.join("\n")}\n`, { mode: 0o600, fsync: false });
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
