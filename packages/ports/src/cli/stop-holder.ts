import { PLATFORM_PORTS } from "../derive.ts";
import { probePort, type PortProbe } from "../probe.ts";
import type { ProjectYml } from "../project-yml-parse.ts";
import { inspectPort, type PortHolder, type PortListeners } from "../socket-table.ts";

export type PortTarget = "be" | "fe";

export type StopRefusal =
  "platform_port" | "port_not_in_file" | "holder_unknown" | "protected_process";

export type StopFailure = "signal_denied" | "still_busy";

interface StopBase {
  readonly target: PortTarget;
  readonly port: number;
}

export type StopResult =
  | (StopBase & { readonly result: "free" })
  | (StopBase & {
      readonly result: "stopped";
      readonly signal: "SIGTERM" | "SIGKILL";
      readonly holders: readonly PortHolder[];
    })
  | (StopBase & {
      readonly result: "refused";
      readonly reason: StopRefusal;
      readonly message: string;
      readonly holders: readonly PortHolder[];
    })
  | (StopBase & {
      readonly result: "failed";
      readonly reason: StopFailure;
      readonly message: string;
      readonly holders: readonly PortHolder[];
    });

/** The outside world, replaceable so that refusals that need odd conditions can be tested. */
export interface StopDependencies {
  readonly probe: (port: number) => Promise<PortProbe>;
  readonly inspect: (port: number) => Promise<PortListeners>;
  readonly signal: (pid: number, signal: "SIGTERM" | "SIGKILL") => void;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  /** Processes never to signal: init, this process and the one that started it. */
  readonly protectedPids: ReadonlySet<number>;
}

export interface StopOptions {
  /** How long the holder gets to exit after SIGTERM before it gets SIGKILL. */
  readonly graceMs: number;
  readonly dependencies?: StopDependencies;
}

const POLL_MS = 50;
/** After SIGKILL the kernel closes the socket at once; this only covers a slow reap. */
const AFTER_KILL_MS = 2000;

export const DEFAULT_GRACE_MS = 5000;

const defaultDependencies: StopDependencies = {
  probe: (port) => probePort(port),
  inspect: inspectPort,
  signal: (pid, signal) => {
    process.kill(pid, signal);
  },
  sleep: (ms) =>
    new Promise((resolve) => {
      setTimeout(resolve, ms);
    }),
  now: () => performance.now(),
  protectedPids: new Set([1, process.pid, process.ppid]),
};

/**
 * The guard in front of every signal: a port may be stopped only if the file names it as
 * this project's BE or FE port, and never if it is one of the platform's. Parsing already
 * rejects such files; this check stands on its own so that no later change can route a
 * platform port into `stop`.
 */
export function refusePort(
  port: number,
  file: ProjectYml,
): { readonly reason: "platform_port" | "port_not_in_file"; readonly message: string } | null {
  if (port === PLATFORM_PORTS.be || port === PLATFORM_PORTS.fe) {
    return {
      reason: "platform_port",
      message: `Port ${port} belongs to the TalkIDE platform itself. It is never stopped from a project.`,
    };
  }
  if (port !== file.ports.be && port !== file.ports.fe) {
    return {
      reason: "port_not_in_file",
      message: `Port ${port} is not one of this project's ports (${file.ports.be}, ${file.ports.fe}).`,
    };
  }
  return null;
}

/**
 * Stops the process that holds this project's BE or FE port: SIGTERM, then SIGKILL after the
 * grace period to whatever still holds it. Only a holder identified from the socket tables is
 * ever signalled, and it is re-checked before SIGKILL, so a pid reused meanwhile is spared.
 * When the port is busy but its holder cannot be seen, it refuses: there is nothing safe to
 * signal, and the user has to decide.
 */
export async function stopPortHolder(
  file: ProjectYml,
  target: PortTarget,
  options: StopOptions,
): Promise<StopResult> {
  const deps = options.dependencies ?? defaultDependencies;
  const port = file.ports[target];
  const base = { target, port };
  const refusal = refusePort(port, file);
  if (refusal !== null) return { ...base, result: "refused", ...refusal, holders: [] };

  if ((await deps.probe(port)).state === "free") return { ...base, result: "free" };
  const { holders } = await deps.inspect(port);
  if (holders.length === 0) {
    return {
      ...base,
      result: "refused",
      reason: "holder_unknown",
      message:
        `Port ${port} is busy, but the process holding it is not visible to this user ` +
        `(another user's process, or one in another container). Nothing was stopped.`,
      holders,
    };
  }
  const guarded = holders.find((holder) => deps.protectedPids.has(holder.pid));
  if (guarded !== undefined) {
    return {
      ...base,
      result: "refused",
      reason: "protected_process",
      message: `Port ${port} is held by pid ${guarded.pid} (${guarded.command}), which is init, this tool or the process that started it. Nothing was stopped.`,
      holders,
    };
  }

  const termDenied = sendAll(deps, holders, "SIGTERM");
  if (termDenied !== null) return signalDenied(base, termDenied, holders);
  const remaining = await waitForRelease(deps, port, holders, options.graceMs);
  let signal: "SIGTERM" | "SIGKILL" = "SIGTERM";
  if (remaining.length > 0) {
    signal = "SIGKILL";
    const killDenied = sendAll(deps, remaining, "SIGKILL");
    if (killDenied !== null) return signalDenied(base, killDenied, holders);
    await waitForRelease(deps, port, remaining, AFTER_KILL_MS);
  }

  const after = await deps.probe(port);
  if (after.state === "free") return { ...base, result: "stopped", signal, holders };
  const now = after.holder === null ? "a process this user cannot see" : describe(after.holder);
  return {
    ...base,
    result: "failed",
    reason: "still_busy",
    message:
      `Port ${port} is still busy after ${signal}: it is now held by ${now}. ` +
      `Something may have restarted the server. Nothing more was stopped.`,
    holders,
  };
}

export function describe(holder: PortHolder): string {
  return `pid ${holder.pid} (${holder.command})`;
}

/** Signals every holder; returns the first one the OS refused to let us signal. */
function sendAll(
  deps: StopDependencies,
  holders: readonly PortHolder[],
  signal: "SIGTERM" | "SIGKILL",
): PortHolder | null {
  for (const holder of holders) {
    try {
      deps.signal(holder.pid, signal);
    } catch (error) {
      // ESRCH: it exited on its own in the meantime, which is what we wanted.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") return holder;
    }
  }
  return null;
}

/** Waits until none of `targets` holds the port any more, or the time is up; returns the rest. */
async function waitForRelease(
  deps: StopDependencies,
  port: number,
  targets: readonly PortHolder[],
  timeoutMs: number,
): Promise<readonly PortHolder[]> {
  const deadline = deps.now() + timeoutMs;
  for (;;) {
    const current = new Set((await deps.inspect(port)).holders.map((holder) => holder.pid));
    const remaining = targets.filter((holder) => current.has(holder.pid));
    if (remaining.length === 0 || deps.now() >= deadline) return remaining;
    await deps.sleep(POLL_MS);
  }
}

function signalDenied(
  base: StopBase,
  holder: PortHolder,
  holders: readonly PortHolder[],
): StopResult {
  return {
    ...base,
    result: "failed",
    reason: "signal_denied",
    message: `The operating system does not let this user signal ${describe(holder)}.`,
    holders,
  };
}
