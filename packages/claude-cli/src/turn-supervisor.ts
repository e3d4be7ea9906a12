import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { definedEntries } from "./child-env.ts";
import { killProcessGroup } from "./process-group.ts";
import {
  LineSplitter,
  isInitEvent,
  isResultEvent,
  parseStreamLine,
  sessionIdOf,
  type ClaudeResultEvent,
  type ClaudeStreamEvent,
} from "./stream-json.ts";
import { classify, type TerminationCause } from "./turn-outcome.ts";
import { DEFAULT_KILL_GRACE_MS, type RunClaudeTurnOptions } from "./turn-options.ts";
import { spawnFailure } from "./turn-preflight.ts";
import type { ClaudeTurnResult } from "./turn-result.ts";

// The child's life: spawn it in its own process group, feed it the prompt, read its events,
// end the group on timeout, abort or a lingering CLI, and settle once its pipes are closed.

const STDERR_TAIL_CHARS = 8192;

export function superviseTurn(
  executable: string,
  args: readonly string[],
  options: RunClaudeTurnOptions,
): Promise<ClaudeTurnResult> {
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;

  return new Promise<ClaudeTurnResult>((resolvePromise, rejectPromise) => {
    const events: ClaudeStreamEvent[] = [];
    const splitter = new LineSplitter();
    let initSessionId: string | null = null;
    let resultEvent: ClaudeResultEvent | null = null;
    let firstInvalidLine: string | null = null;
    let stderrTail = "";
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let terminatedBy: TerminationCause | null = null;
    let escalatedToSigkill = false;
    let callbackError: unknown = null;
    let settled = false;
    const timers = new Set<NodeJS.Timeout>();

    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(executable, args, {
        cwd: options.cwd,
        env: definedEntries(options.env),
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      resolvePromise(spawnFailure(executable, error));
      return;
    }

    const later = (ms: number, action: () => void): void => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        action();
      }, ms);
      timers.add(timer);
    };

    const settle = (outcome: () => ClaudeTurnResult): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      options.signal?.removeEventListener("abort", onAbort);
      if (callbackError !== null) {
        rejectPromise(
          callbackError instanceof Error
            ? callbackError
            : new Error("onEvent threw a value that is not an Error", { cause: callbackError }),
        );
      } else {
        resolvePromise(outcome());
      }
    };

    const terminate = (cause: NonNullable<typeof terminatedBy>): void => {
      if (terminatedBy !== null || child.pid === undefined) return;
      terminatedBy = cause;
      killProcessGroup(child.pid, "SIGTERM");
      later(killGraceMs, () => {
        if (child.pid !== undefined && killProcessGroup(child.pid, "SIGKILL")) {
          escalatedToSigkill = exit === null;
        }
      });
    };

    const onAbort = (): void => {
      if (resultEvent === null) terminate("aborted");
    };

    const handleLine = (line: string): void => {
      const parsed = parseStreamLine(line);
      if (parsed.kind === "blank") return;
      if (parsed.kind === "invalid") {
        firstInvalidLine ??= line;
        return;
      }
      const event = parsed.event;
      events.push(event);
      if (isInitEvent(event)) initSessionId ??= sessionIdOf(event);
      if (isResultEvent(event) && resultEvent === null) {
        resultEvent = event;
        // The outcome is known; a CLI that lingers afterwards (a tool still running, a
        // stuck child) is cleaned up instead of turning a finished turn into a timeout.
        later(killGraceMs, () => {
          if (exit === null) terminate("after_result");
        });
      }
      if (options.onEvent !== undefined && callbackError === null) {
        try {
          options.onEvent(event);
        } catch (error) {
          callbackError = error;
          terminate("callback_error");
        }
      }
    };

    child.on("error", (error) => {
      // Without a pid the process never started; with one, a failed kill lands here and the
      // exit/close events still decide the outcome.
      if (child.pid === undefined) settle(() => spawnFailure(executable, error));
    });
    if (child.pid !== undefined && options.onSpawn !== undefined) {
      try {
        options.onSpawn(child.pid);
      } catch (error) {
        callbackError = error;
        terminate("callback_error");
      }
    }
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      for (const line of splitter.push(chunk)) handleLine(line);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    // A child that exits before reading its prompt closes the pipe (EPIPE); the exit status
    // tells what happened, so the write error itself carries no information.
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.prompt);

    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (terminatedBy !== null && child.pid !== undefined) {
        // The leader is gone; whatever it started and left behind goes with it.
        killProcessGroup(child.pid, "SIGKILL");
      }
      // A descendant that inherited stdout/stderr (and left the group) can keep the pipes
      // open after the CLI exited; stop waiting for it after the grace period.
      later(killGraceMs, () => {
        child.stdout.destroy();
        child.stderr.destroy();
      });
    });

    child.on("close", () => {
      for (const line of splitter.end()) handleLine(line);
      settle(() =>
        classify({
          timeoutMs: options.timeoutMs,
          killGraceMs,
          resultEvent,
          initSessionId,
          firstInvalidLine,
          stderrTail,
          exit,
          terminatedBy,
          escalatedToSigkill,
          events,
        }),
      );
    });

    later(options.timeoutMs, () => {
      if (resultEvent === null) terminate("timeout");
    });
    options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
