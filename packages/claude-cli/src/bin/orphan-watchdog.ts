/**
 * The watchdog process (see orphan-watchdog.ts): reads `+ value` / `- value` lines from its
 * instance on stdin; at end of input, kills the processes of the values still tracked.
 * Usage: node bin/orphan-watchdog.js <VARIABLE>
 */
import { createInterface } from "node:readline";
import { killLeftoverProcesses } from "../leftover-processes.ts";

const variable = process.argv[2] ?? "";
const live = new Set<string>();

// Signals meant for the instance's terminal or group are not ours: only the pipe ends us.
for (const signal of ["SIGINT", "SIGHUP", "SIGTERM"] as const) process.on(signal, () => undefined);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const value = line.slice(2);
  if (line.startsWith("+ ")) live.add(value);
  else if (line.startsWith("- ")) live.delete(value);
});
lines.on("close", () => {
  // Its instance's own turns, all marked with the one name it was given.
  void killLeftoverProcesses([variable], [...live]).finally(() => process.exit(0));
});
