import { readdir, readFile } from "node:fs/promises";

/**
 * Finds and kills the processes a killed service left behind: a turn's `claude` runs in a
 * detached process group (so a timeout can end everything it started), which therefore
 * outlives a service that dies by `kill -9`, a crash or an out-of-memory kill. Before that
 * turn's session runs again, its leftovers must be gone, or two processes would work on one
 * session (and one workspace) at the same time.
 *
 * The service marks every spawn with a variable in the child's environment (`variable=value`,
 * e.g. the turn id). Every descendant inherits it, also one that left the process group
 * (`setsid`, a daemonizing tool), and a recycled pid cannot carry it: so processes are
 * recognised by `/proc/<pid>/environ`, not by a stored pid. A process carrying any of
 * `variables` with one of `values` is a leftover: a marker's current name and the one an older
 * release used (`TURN_MARKER_VARIABLES`). Linux only: without `/proc` nothing is found and
 * `supported` is false, for the caller to log.
 *
 * Resolves once the killed processes are gone (or zombies: dead, their environment empty),
 * at most `EXIT_WAIT_MS` after the last kill: a SIGKILL is delivered at once but takes effect
 * when the kernel next schedules the process, and a caller that goes on to say "nothing of the
 * old run lives" (the backend starts listening) must be right when it says so.
 */
export async function killLeftoverProcesses(
  variables: readonly string[],
  values: readonly string[],
): Promise<{ readonly supported: boolean; readonly killed: readonly number[] }> {
  if (values.length === 0) return { supported: true, killed: [] };
  const wanted = new Set(
    variables.flatMap((variable) => values.map((value) => `${variable}=${value}`)),
  );
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
      // Killed in an earlier pass and not yet gone: counted once.
      if (killed.includes(pid)) continue;
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
  await untilGone(killed);
  return { supported: true, killed };
}

/** The longest the caller waits for killed processes to disappear (a bound, not an estimate). */
const EXIT_WAIT_MS = 5_000;

async function untilGone(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + EXIT_WAIT_MS;
  let left = [...pids];
  while (left.length > 0 && Date.now() < deadline) {
    const states = await Promise.all(left.map((pid) => stateOf(pid)));
    left = left.filter((_, i) => states[i] !== null && states[i] !== "Z");
    if (left.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The process's state letter (`R`, `S`, `Z`, …), or null when it no longer exists. */
async function stateOf(pid: number): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${String(pid)}/stat`, "utf8");
    // The command name (in parentheses) may hold spaces: the state follows its last `)`.
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) || null;
  } catch {
    return null;
  }
}
