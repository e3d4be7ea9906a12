import { spawn } from "node:child_process";

/**
 * Starts a watchdog: a POSIX sh script (no Node start-up) that outlives the process starting
 * it, to clean up after that process once it is gone. It runs detached (its own session, so
 * the owner's terminal signals miss it), with no stdio and unref()ed, so it never keeps the
 * owner alive; the script itself should ignore HUP, INT and TERM (a tree-kill reaches it too).
 * `name` is the script's `$0`, what `ps` shows. Returns its pid at once (so a caller can go on
 * to watch the process it guards without missing an event); throws when it could not start.
 */
export function startDetachedWatchdog(
  name: string,
  script: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): number {
  const watchdog = spawn("sh", ["-c", script, name, ...args], {
    detached: true,
    stdio: "ignore",
    ...(env === undefined ? {} : { env }),
  });
  watchdog.unref();
  // A failed spawn has no pid (thrown below) and then emits "error", which is handled here.
  watchdog.once("error", () => undefined);
  if (watchdog.pid === undefined) throw new Error(`the watchdog ${name} could not start (no sh?)`);
  return watchdog.pid;
}
