import { readdir, readFile } from "node:fs/promises";
import { TURN_ID_VARIABLE } from "../agent/claude-args.ts";

/** Live (not zombie) processes whose environment carries `TALKIDE_TURN_ID=<turnId>`. */
export async function processesOfTurn(turnId: string): Promise<number[]> {
  const marker = `${TURN_ID_VARIABLE}=${turnId}`;
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

export async function until<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 1500; i += 1) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
