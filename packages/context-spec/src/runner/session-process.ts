// One implementation process in session mode (spec/runner-protocol.md#session-mode): started
// once, asked many cases, each answer read back by its length-prefixed frame. Whatever goes
// wrong during a case (death, a hang, a broken frame) is that case's outcome, exactly as the
// per-case protocol would have read it, and the process is killed with its whole group; the
// caller starts a fresh one for the next case.

import { spawn, type ChildProcess } from "node:child_process";
import {
  HANDSHAKE_LINE,
  lineEnd,
  parseAnswerHeader,
  requestFrame,
  SESSION_ENV,
  SESSION_VERSION,
} from "../session/frames.ts";
import { killProcessGroup, type ProcessOutcome } from "./spawn.ts";

export interface SessionCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string | undefined;
}

/** The outcome of one case, and whether the process can take the next one. */
export interface SessionReply {
  readonly outcome: ProcessOutcome;
  readonly reusable: boolean;
}

type Ended = { readonly code: number | null; readonly signal: NodeJS.Signals | null };

const TIMED_OUT = Symbol("timed out");

export class SessionProcess {
  readonly #child: ChildProcess;
  #stdout: Buffer = Buffer.alloc(0);
  /** Standard error since the current case began, shown for a crash or a timeout. */
  #stderr = "";
  #ended: Ended | null = null;
  #startError: Error | null = null;
  #listener: (() => void) | null = null;

  private constructor(command: SessionCommand) {
    this.#child = spawn(command.command, [...command.args], {
      cwd: command.cwd,
      env: { ...process.env, [SESSION_ENV]: SESSION_VERSION },
      stdio: ["pipe", "pipe", "pipe"],
      // Its own process group, so a hang or a crash can take everything it started with it.
      detached: true,
    });
    this.#child.stdout?.on("data", (chunk: Buffer) => {
      this.#stdout = Buffer.concat([this.#stdout, chunk]);
      this.#listener?.();
    });
    this.#child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr += chunk.toString("utf8");
    });
    // A process that died is read through "close"; writing to it must not throw (EPIPE).
    this.#child.stdin?.on("error", () => undefined);
    this.#child.on("error", (error) => {
      this.#startError = error;
      this.#listener?.();
    });
    this.#child.on("close", (code, signal) => {
      this.#ended = { code, signal };
      this.#listener?.();
    });
  }

  /**
   * Starts the command and waits for its handshake line. Resolves to null (and leaves no
   * process behind) when it answers anything else, ends, or stays silent for `timeoutMs`:
   * then it speaks only the per-case protocol.
   */
  static async start(command: SessionCommand, timeoutMs: number): Promise<SessionProcess | null> {
    const session = new SessionProcess(command);
    const handshake = Buffer.from(HANDSHAKE_LINE, "latin1");
    const accepted = await session.#waitFor(() => {
      const seen = session.#stdout.subarray(0, handshake.length);
      if (!handshake.subarray(0, seen.length).equals(seen)) return false;
      if (seen.length === handshake.length) return true;
      return session.#ended !== null || session.#startError !== null ? false : undefined;
    }, timeoutMs);
    if (accepted !== true) {
      session.kill();
      return null;
    }
    session.#stdout = session.#stdout.subarray(handshake.length);
    return session;
  }

  /** Sends one case and reads its answer, or how the process failed it. */
  async ask(input: Uint8Array, timeoutMs: number): Promise<SessionReply> {
    this.#stderr = "";
    this.#child.stdin?.write(requestFrame(input));
    const reply = await this.#waitFor(() => this.#readAnswer(), timeoutMs);
    if (reply === TIMED_OUT) {
      this.kill();
      return { outcome: { kind: "timeout", stderr: this.#stderr }, reusable: false };
    }
    if (!reply.reusable) this.kill();
    return reply;
  }

  /** Ends the session: closes its input, gives it a moment to exit, then kills its group. */
  async close(graceMs = 2_000): Promise<void> {
    this.#child.stdin?.end();
    await this.#waitFor(() => (this.#ended === null ? undefined : true), graceMs);
    this.kill();
  }

  kill(): void {
    killProcessGroup(this.#child.pid);
  }

  /** The answer once its frame is complete; the failure once the process broke or died. */
  #readAnswer(): SessionReply | undefined {
    const end = lineEnd(this.#stdout);
    if (end >= 0) {
      const line = this.#stdout.subarray(0, end).toString("latin1");
      const header = parseAnswerHeader(line);
      if (header === null) {
        const detail = `expected "answer <exit status> <stdout bytes> <stderr bytes>", got ${JSON.stringify(line.slice(0, 200))}`;
        return {
          outcome: { kind: "session-broken", detail, stderr: this.#stderr },
          reusable: false,
        };
      }
      const total = end + 1 + header.stdoutLength + header.stderrLength;
      if (this.#stdout.length >= total) {
        const stdoutEnd = end + 1 + header.stdoutLength;
        const stdout = Uint8Array.prototype.slice.call(this.#stdout, end + 1, stdoutEnd);
        const stderr = this.#stdout.subarray(stdoutEnd, total).toString("utf8");
        this.#stdout = this.#stdout.subarray(total);
        return {
          outcome: { kind: "exited", exitCode: header.exitCode, stdout, stderr },
          reusable: true,
        };
      }
    }
    if (this.#startError !== null) {
      return {
        outcome: { kind: "spawn-failed", message: this.#startError.message },
        reusable: false,
      };
    }
    if (this.#ended === null) return undefined;
    return { outcome: this.#deathOutcome(this.#ended), reusable: false };
  }

  /** A process that died during a case: read as the per-case protocol reads a death. */
  #deathOutcome({ code, signal }: Ended): ProcessOutcome {
    const stdout = new Uint8Array(0);
    if (signal !== null) return { kind: "signaled", signal, stdout, stderr: this.#stderr };
    // Exit 0 or 2 would read as an answer; without an answer frame it broke the session.
    if (code === 0 || code === 2 || code === null) {
      const detail = `the process exited (status ${String(code)}) without answering the case`;
      return { kind: "session-broken", detail, stderr: this.#stderr };
    }
    return { kind: "exited", exitCode: code, stdout, stderr: this.#stderr };
  }

  /** Resolves with the first defined value of `take`, re-checked on every event, or TIMED_OUT. */
  #waitFor<T>(take: () => T | undefined, timeoutMs: number): Promise<T | typeof TIMED_OUT> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#listener = null;
        resolve(TIMED_OUT);
      }, timeoutMs);
      const check = (): void => {
        const value = take();
        if (value === undefined) return;
        clearTimeout(timer);
        this.#listener = null;
        resolve(value);
      };
      this.#listener = check;
      check();
    });
  }
}
