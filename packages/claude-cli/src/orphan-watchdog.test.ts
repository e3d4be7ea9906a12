import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startOrphanWatchdog } from "./orphan-watchdog.ts";
import { processesWithMarker, watchdogOf } from "./testing/processes.ts";

const VARIABLE = "TALKIDE_WATCHDOG_TEST_TURN";

function processesWith(value: string): Promise<number[]> {
  return processesWithMarker(VARIABLE, value);
}

async function until(probe: () => Promise<boolean>): Promise<void> {
  while (!(await probe())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** A "turn": a process group with a helper that left it (setsid), both marked. */
function spawnTurn(value: string): void {
  const child = spawn("sh", ["-c", "setsid sleep 300 >/dev/null 2>&1 & exec sleep 300"], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, [VARIABLE]: value },
  });
  child.unref();
}

describe.skipIf(process.platform !== "linux")("the orphan watchdog", () => {
  it("kills the tracked turns' processes, and only theirs, when its instance's pipe closes", async () => {
    const watchdog = startOrphanWatchdog(VARIABLE);
    const tracked = `t-${process.pid}-a`;
    const finished = `t-${process.pid}-b`;
    watchdog.track(tracked);
    watchdog.track(finished);
    spawnTurn(tracked);
    spawnTurn(finished);
    await until(async () => (await processesWith(tracked)).length === 2);
    await until(async () => (await processesWith(finished)).length === 2);
    // The second turn finished (as far as the instance knows): its processes are left alone.
    watchdog.untrack(finished);
    await watchdog.close();
    await until(async () => (await processesWith(tracked)).length === 0);
    const untouched = await processesWith(finished);
    expect(untouched).toHaveLength(2);
    for (const pid of untouched) process.kill(pid, "SIGKILL");
  });

  it("starts its process with the first tracked turn, and none for an instance without turns", async () => {
    const idle = startOrphanWatchdog(VARIABLE);
    idle.untrack(`t-${process.pid}-never`);
    expect(await watchdogOf(process.pid)).toBeNull();
    await idle.close();

    const busy = startOrphanWatchdog(VARIABLE);
    busy.track(`t-${process.pid}-c`);
    expect(await watchdogOf(process.pid)).not.toBeNull();
    busy.untrack(`t-${process.pid}-c`);
    await busy.close();
    expect(await watchdogOf(process.pid)).toBeNull();
  });

  it("refuses a variable or a value that could break its line protocol", () => {
    expect(() => startOrphanWatchdog("not a name")).toThrow(TypeError);
    const watchdog = startOrphanWatchdog(VARIABLE);
    expect(() => {
      watchdog.track("a\n+ b");
    }).toThrow(TypeError);
    return watchdog.close();
  });
});
