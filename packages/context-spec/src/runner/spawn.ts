// Runs one implementation command on one input. The child gets its own process group so a
// timeout can kill everything it started (a shell wrapper, a JVM and its helpers), not
// just the direct child.

import { execa } from "execa";
import { SESSION_ENV } from "../session/frames.ts";

export type ProcessOutcome =
  | {
      readonly kind: "exited";
      readonly exitCode: number;
      readonly stdout: Uint8Array;
      readonly stderr: string;
    }
  | {
      readonly kind: "signaled";
      readonly signal: string;
      readonly stdout: Uint8Array;
      readonly stderr: string;
    }
  | { readonly kind: "timeout"; readonly stderr: string }
  | { readonly kind: "spawn-failed"; readonly message: string }
  /** Only in session mode: an answer frame that breaks the session's framing. */
  | { readonly kind: "session-broken"; readonly detail: string; readonly stderr: string };

export interface ProcessRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly input: Uint8Array;
  readonly timeoutMs: number;
  readonly cwd?: string | undefined;
}

export async function runProcess(request: ProcessRequest): Promise<ProcessOutcome> {
  // A per-case run never offers a session, not even one the runner's own environment names.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== SESSION_ENV),
  );
  const child = execa(request.command, [...request.args], {
    env,
    extendEnv: false,
    input: request.input,
    encoding: "buffer",
    reject: false,
    stripFinalNewline: false,
    detached: true,
    ...(request.cwd === undefined ? {} : { cwd: request.cwd }),
  });
  // An object, not a let: the flag is set inside the timer callback.
  const deadline = { passed: false };
  const timer = setTimeout(() => {
    deadline.passed = true;
    killProcessGroup(child.pid);
  }, request.timeoutMs);
  const result = await child;
  clearTimeout(timer);
  // Whatever the command left running in its group goes too: no stray processes per case.
  killProcessGroup(child.pid);
  const stderr = new TextDecoder().decode(result.stderr);
  if (deadline.passed) return { kind: "timeout", stderr };
  if (result.exitCode !== undefined) {
    return { kind: "exited", exitCode: result.exitCode, stdout: result.stdout, stderr };
  }
  if (result.signal !== undefined)
    return { kind: "signaled", signal: result.signal, stdout: result.stdout, stderr };
  return {
    kind: "spawn-failed",
    message: result.shortMessage ?? result.message ?? "the command could not be started",
  };
}

export function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // A negative pid addresses the whole process group that `detached` created.
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone, which is the goal.
  }
}
