// How the runner gets one answer from the implementation: per case (a process per case and
// output, the protocol every implementation speaks) or in a session (one process per
// argument list, asked case after case), falling back to per case for an implementation
// that does not answer the session handshake.

import { SessionProcess } from "./session-process.ts";
import { runProcess, type ProcessOutcome } from "./spawn.ts";

export interface AnswerRequest {
  /** The implementation's arguments, `{output}` already replaced. */
  readonly args: readonly string[];
  readonly input: Uint8Array;
}

export interface Driver {
  answer(request: AnswerRequest): Promise<ProcessOutcome>;
  /** Ends every process the driver still holds. */
  close(): Promise<void>;
}

export interface DriverTarget {
  readonly command: string;
  readonly timeoutMs: number;
  readonly cwd?: string | undefined;
}

export function perCaseDriver(target: DriverTarget): Driver {
  return {
    answer: ({ args, input }) =>
      runProcess({
        command: target.command,
        args,
        input,
        timeoutMs: target.timeoutMs,
        cwd: target.cwd,
      }),
    close: () => Promise.resolve(),
  };
}

/**
 * Keeps idle sessions per argument list (a suite with two outputs gets two kinds), at most
 * one per case in flight. A process that failed a case is gone; the next case starts another.
 * Once a start is refused (no handshake) and none ever succeeded, every case runs per case.
 */
export function sessionDriver(target: DriverTarget): Driver {
  const perCase = perCaseDriver(target);
  const idle = new Map<string, SessionProcess[]>();
  let speaksSession: boolean | undefined;

  const acquire = async (args: readonly string[]): Promise<SessionProcess | null> => {
    const waiting = idle.get(JSON.stringify(args));
    const reused = waiting?.pop();
    if (reused !== undefined) return reused;
    if (speaksSession === false) return null;
    const started = await SessionProcess.start(
      { command: target.command, args, cwd: target.cwd },
      target.timeoutMs,
    );
    if (started !== null) speaksSession = true;
    else speaksSession ??= false;
    return started;
  };

  return {
    answer: async (request) => {
      const session = await acquire(request.args);
      if (session === null) return perCase.answer(request);
      const { outcome, reusable } = await session.ask(request.input, target.timeoutMs);
      if (reusable) {
        const key = JSON.stringify(request.args);
        idle.set(key, [...(idle.get(key) ?? []), session]);
      }
      return outcome;
    },
    close: async () => {
      const sessions = [...idle.values()].flat();
      idle.clear();
      await Promise.all(sessions.map((session) => session.close()));
    },
  };
}
