import { spawn } from "node:child_process";
import type { Socket } from "node:net";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Ends a service instance's turn processes when the instance dies, on its own machine, even
 * by `kill -9` and with no other instance alive to notice. A turn's `claude` runs in its own
 * process group (so a timeout can end all of it), which outlives its parent; another
 * instance can fail the turn by lease, but it cannot reach processes on another machine.
 *
 * So each instance starts one small watchdog process in a session of its own (with its first
 * turn) and tells it, over a pipe, which turns it runs. When the pipe closes (the instance
 * exited, however), the watchdog kills every process carrying one of those turns' marker
 * (`variable=value` in its environment, see leftover-processes.ts) and exits. Linux only, like
 * that lookup; elsewhere the watchdog finds nothing.
 */
export interface OrphanWatchdog {
  /** A turn with this marker value is about to spawn processes. */
  track(value: string): void;
  /** The turn's processes have ended. */
  untrack(value: string): void;
  /** Ends the watchdog; the processes of turns still tracked are killed. */
  close(): Promise<void>;
}

/** The watchdog's own script: `.ts` when run from source, `.js` when built. */
const WATCHDOG_MAIN = fileURLToPath(
  new URL(`./bin/orphan-watchdog${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/** Marker values become a line of the pipe's protocol: nothing that could split one. */
const SAFE_VALUE = /^[\w.:-]{1,200}$/;

export function startOrphanWatchdog(variable: string): OrphanWatchdog {
  if (!/^[A-Z_][A-Z0-9_]*$/.test(variable)) {
    throw new TypeError(`Not an environment variable name: ${JSON.stringify(variable)}`);
  }
  // The process starts with the first turn, not with the instance: an instance that never
  // runs a turn (a console-only backend, a daemon nobody writes to, most of a test run's
  // services) holds no watchdog. The first `track` comes before that turn spawns anything, so
  // every turn process is covered from its start all the same.
  let watchdog: ReturnType<typeof spawnWatchdog> | null = null;
  let open = true;
  const checked = (value: string): string => {
    if (!SAFE_VALUE.test(value)) {
      throw new TypeError(`Not a marker value the watchdog can track: ${JSON.stringify(value)}`);
    }
    return value;
  };
  const send = (line: string): void => {
    if (!open) return;
    watchdog ??= spawnWatchdog(variable);
    watchdog.send(line);
  };
  return {
    track: (value) => {
      send(`+ ${checked(value)}`);
    },
    untrack: (value) => {
      const line = `- ${checked(value)}`;
      // Nothing tracked yet means nothing to take back: no process for that.
      if (watchdog !== null) send(line);
    },
    async close() {
      open = false;
      await watchdog?.close();
    },
  };
}

/** The watchdog process in a session of its own, fed `+`/`-` lines over its stdin pipe. */
function spawnWatchdog(variable: string): {
  send(line: string): void;
  close(): Promise<void>;
} {
  const child = spawn(process.execPath, [WATCHDOG_MAIN, variable], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      resolve();
    });
    child.once("error", () => {
      resolve();
    });
  });
  // Neither the watchdog nor its pipe keeps the instance's event loop alive.
  child.unref();
  (child.stdin as unknown as Socket).unref();
  // A watchdog that died (someone killed it) must not take the instance down with EPIPE.
  child.stdin.on("error", () => undefined);
  let closing = false;
  return {
    send(line) {
      if (child.stdin.writable) child.stdin.write(`${line}\n`);
    },
    close() {
      if (!closing) {
        closing = true;
        // Waiting for its exit must hold the event loop, or the process could end first.
        child.ref();
        child.stdin.end();
      }
      return exited;
    },
  };
}
