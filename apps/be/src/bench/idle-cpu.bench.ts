// Idle cost: the CPU a backend uses while nobody talks to it, started as `npm start` starts it
// (the embedded database, the demo model), read from /proc over a minute once its start has
// settled: the service's process and the processes it started (its orphan watchdog). Prints a
// Markdown row for BENCHMARKS.md.
//   node --conditions=@talkide/source src/bench/idle-cpu.bench.ts
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { baseEnv, serve } from "../test-support/cli-process.ts";

const SETTLE_MS = Number(process.env.BENCH_IDLE_SETTLE_MS ?? 15_000);
const WINDOW_MS = Number(process.env.BENCH_IDLE_WINDOW_MS ?? 60_000);
/** Linux's clock ticks per second, the unit of /proc/<pid>/stat's CPU times. */
const TICKS_PER_SECOND = 100;

/** The CPU seconds (user and system) of `pid` and of each process it started, by pid. */
function cpuByProcess(pid: number): Map<number, number> {
  const seconds = new Map<number, number>();
  const read = (id: number): void => {
    const stat = readFileSync(`/proc/${id}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    seconds.set(id, (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
  };
  read(pid);
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  for (const child of children === "" ? [] : children.split(" ")) read(Number(child));
  return seconds;
}

const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-idle-bench-"));
try {
  const service = await serve(baseEnv(dataDir));
  if (service.pid === undefined) throw new Error("the service did not start");
  try {
    await sleep(SETTLE_MS);
    const before = cpuByProcess(service.pid);
    await sleep(WINDOW_MS);
    const after = cpuByProcess(service.pid);
    let used = 0;
    for (const [pid, seconds] of after) used += seconds - (before.get(pid) ?? 0);
    const perMinute = (used * 60_000) / WINDOW_MS;
    console.log("| CPU a minute, idle (service and its processes) | share of one core |");
    console.log("| --- | --- |");
    console.log(`| ${perMinute.toFixed(2)} s | ${((100 * perMinute) / 60).toFixed(1)}% |`);
  } finally {
    await service.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
