import { readdir, readFile } from "node:fs/promises";

/**
 * Live (not zombie) processes whose environment carries `variable=value`: how the tests find
 * a turn's processes, also those that left its process group. Linux only (`/proc`).
 */
export async function processesWithMarker(variable: string, value: string): Promise<number[]> {
  const marker = `${variable}=${value}`;
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const [environ, stat] = await Promise.all([
      readFile(`/proc/${entry}/environ`, "utf8").catch(() => ""),
      readFile(`/proc/${entry}/stat`, "utf8").catch(() => ""),
    ]);
    // The state letter follows the parenthesised command name; Z is a zombie (already dead).
    const state = /\) (\S)/.exec(stat)?.[1];
    if (state !== undefined && state !== "Z" && environ.split("\0").includes(marker)) {
      found.push(Number(entry));
    }
  }
  return found;
}

/**
 * The orphan watchdog (see orphan-watchdog.ts) a live service process started: its child that
 * runs the watchdog script; null when there is none.
 */
export async function watchdogOf(servicePid: number): Promise<number | null> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const [cmdline, stat] = await Promise.all([
      readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => ""),
      readFile(`/proc/${entry}/stat`, "utf8").catch(() => ""),
    ]);
    // The parent pid is the second field after the parenthesised command name.
    const parent = Number(/\) \S (\d+)/.exec(stat)?.[1]);
    if (parent === servicePid && cmdline.includes("orphan-watchdog")) return Number(entry);
  }
  return null;
}
