import { readdir, readFile } from "node:fs/promises";
import { processesWithMarker } from "@talkide/claude-cli/testing";
import { TURN_ID_VARIABLE } from "../agent/claude-args.ts";

/** Live (not zombie) processes whose environment carries `TALKIDE_TURN_ID=<turnId>`. */
export function processesOfTurn(turnId: string): Promise<number[]> {
  return processesWithMarker(TURN_ID_VARIABLE, turnId);
}

export async function until<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 1500; i += 1) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The orphan watchdog a live service process started (its child running the watchdog script). */
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
