import type { ChildProcess } from "node:child_process";
import { startDetachedWatchdog } from "@talkide/test-postgres";

/**
 * The watchdog behind `stopWithOwner`, a POSIX sh loop (no Node start-up, a `sleep` a second
 * while idle). Arguments: the owner's pid, the service's pid, the grace in seconds. It ends on
 * its own as soon as the service has exited, so a normal run leaves none behind. Once the
 * owner is gone it sends the service SIGTERM (its own graceful stop, which ends its turns),
 * then SIGKILL after the grace. It ignores HUP, INT and TERM: a Ctrl-C or `concurrently`'s
 * tree-kill reaches the test worker's descendants, this one too, and it must outlive the owner
 * to stop the service. A service pid reused by another process within the second between two
 * checks, just as the owner dies, would get the signal: the same window test-postgres's
 * server watchdog accepts.
 */
const WATCHDOG_SCRIPT = `
trap '' HUP INT TERM
owner=$1 service=$2 grace=$3
while kill -0 "$owner" 2>/dev/null; do
  kill -0 "$service" 2>/dev/null || exit 0
  sleep 1
done
kill -TERM "$service" 2>/dev/null || exit 0
waited=0
while [ "$waited" -lt "$grace" ] && kill -0 "$service" 2>/dev/null; do
  sleep 1
  waited=$((waited + 1))
done
kill -KILL "$service" 2>/dev/null
exit 0
`;

/**
 * Stops a service a test started as its own process (a daemon, the backend's `serve`) when the
 * process that started it, the vitest worker, dies without stopping it: killed by SIGKILL, say,
 * where no `afterAll` runs. Without this such a service keeps running, and using CPU, long
 * after the test run. The watchdog is started as test-postgres starts its server's
 * (`startDetachedWatchdog`: detached, no stdio, unref()ed), with a bare environment (nothing a
 * test looks for in a process's environment). Returns the watchdog's pid, or undefined when
 * the service has no pid (it failed to spawn; then there is nothing to stop); throws when the
 * watchdog cannot start (no `sh`).
 */
export function stopWithOwner(service: ChildProcess, graceSeconds = 10): number | undefined {
  if (service.pid === undefined) return undefined;
  return startDetachedWatchdog(
    "talkide-test-service-watchdog",
    WATCHDOG_SCRIPT,
    [String(process.pid), String(service.pid), String(graceSeconds)],
    { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
  );
}
