import { readdir, readFile } from "node:fs/promises";

/** Set in every turn's child environment; inherited by everything the turn starts. */
export const TURN_ID_VARIABLE = "TICLAWK_TURN_ID";

/**
 * Finds and kills processes left behind by turns of a daemon that was killed (kill -9, a
 * crash, a power cut of the daemon only). A turn's process group is detached from the
 * daemon, so it outlives it; before such a delivery runs again, its previous run must be
 * gone, or it would run twice at the same time.
 *
 * Processes are recognised by the turn id in their environment (`/proc/<pid>/environ`),
 * which every descendant inherits, and which a recycled pid cannot carry. Linux only: where
 * `/proc` is missing, nothing is found and the caller logs that it could not check.
 */
export async function killOrphanedTurnProcesses(
  turnIds: readonly string[],
): Promise<{ readonly supported: boolean; readonly killed: readonly number[] }> {
  if (turnIds.length === 0) return { supported: true, killed: [] };
  const wanted = new Set(turnIds.map((id) => `${TURN_ID_VARIABLE}=${id}`));
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return { supported: false, killed: [] };
  }
  const killed: number[] = [];
  // A process may fork while we look; a few passes catch children born during the first.
  for (let pass = 0; pass < 3; pass += 1) {
    let found = 0;
    for (const entry of pass === 0 ? entries : await readdir("/proc")) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
      let environ: string;
      try {
        environ = await readFile(`/proc/${entry}/environ`, "utf8");
      } catch {
        continue; // gone already, or not ours to read
      }
      if (!environ.split("\0").some((v) => wanted.has(v))) continue;
      try {
        process.kill(pid, "SIGKILL");
        killed.push(pid);
        found += 1;
      } catch {
        // exited between the read and the kill
      }
    }
    if (found === 0) break;
  }
  return { supported: true, killed };
}
