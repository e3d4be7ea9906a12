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
