import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { buildClaudeArgs, type ClaudeArgsOptions } from "./claude-args.ts";
import { ClaudeCliError } from "./errors.ts";
import { killProcessGroup } from "./process-group.ts";
import { isSyntheticAssistantEvent, runtimeErrorOf, type RuntimeErrorInfo } from "./turn-error.ts";
import {
  LineSplitter,
  isInitEvent,
  isResultEvent,
  parseStreamLine,
  sessionIdOf,
  totalCostOf,
  type ClaudeResultEvent,
  type ClaudeStreamEvent,
} from "./stream-json.ts";

export type ClaudeTurnFailureReason =
  "binary_missing" | "spawn_failed" | "timeout" | "crashed" | "is_error" | "protocol" | "aborted";

export interface ClaudeTurnSuccess {
  readonly ok: true;
  readonly sessionId: string;
  readonly resultText: string;
  /** The session's cumulative cost after this turn, as the CLI reported it. */
  readonly totalCostUsd: number | null;
  readonly events: readonly ClaudeStreamEvent[];
  /**
   * The uuid of the turn's last message from the agent (the last main-thread `assistant`
   * event), or null when there was none. Pass it as `resumeAtMessageId` with the next resume:
   * the conversation then continues from this turn, whatever failed after it.
   */
  readonly lastMessageId: string | null;
}

export interface ClaudeTurnFailure {
  readonly ok: false;
  readonly reason: ClaudeTurnFailureReason;
  /** One or two sentences for a person: what happened and what to do. */
  readonly message: string;
  /** The session the CLI announced in its init event (null when it announced none). */
  readonly sessionId: string | null;
  readonly totalCostUsd: number | null;
  readonly exitCode: number | null;
  /** The last 8 KiB of the child's standard error. */
  readonly stderrTail: string;
  /** For `is_error`: what kind of runtime error it was (see `turnErrorFor`); null otherwise. */
  readonly runtimeError: RuntimeErrorInfo | null;
}

export type ClaudeTurnResult = ClaudeTurnSuccess | ClaudeTurnFailure;

export interface RunClaudeTurnOptions extends ClaudeArgsOptions {
  /** Absolute path of the `claude` executable, or a bare name looked up on `env.PATH`. */
  readonly claudePath: string;
  /** Working directory of the turn (the project or agent workspace); must exist. */
  readonly cwd: string;
  /** The user message of the turn, written to the child's standard input. */
  readonly prompt: string;
  /**
   * The child's complete environment. Nothing is inherited from this process, so what the
   * agent sees is exactly what the caller chose (keys with `undefined` are left out).
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The turn ends with reason `timeout` when no result arrived within this many ms. */
  readonly timeoutMs: number;
  /** Aborting ends the turn with reason `aborted` (unless its result already arrived). */
  readonly signal?: AbortSignal | undefined;
  /**
   * Called once the child runs, with its pid, which is also its process-group id. A service
   * that can be killed mid-turn stores it, so that after a restart it can end a turn that
   * outlived it (`process.kill(-pid, "SIGKILL")`) before running that turn again: the group is
   * detached, so it survives the death of its parent.
   */
  readonly onSpawn?: ((pid: number) => void) | undefined;
  /** Called with every parsed event as it arrives; a throw ends the turn and rejects (so does a throw in `onSpawn`). */
  readonly onEvent?: ((event: ClaudeStreamEvent) => void) | undefined;
  /**
   * How long a terminated process group gets between SIGTERM and SIGKILL, and how long the
   * CLI may linger after its result event before it is terminated. Default 2000 ms.
   */
  readonly killGraceMs?: number | undefined;
}

export const DEFAULT_KILL_GRACE_MS = 2000;
const STDERR_TAIL_CHARS = 8192;
/** setTimeout fires at once for delays above 2^31-1 ms; refuse them instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs one print-mode turn of the Claude Code CLI and reads its stream-json output.
 *
 * The child is the leader of its own process group, so a timeout or an abort terminates
 * everything the turn started (tools, shells): SIGTERM to the group, SIGKILL after
 * `killGraceMs`. Runtime failures (missing binary, failed spawn, timeout, crash, an
 * `is_error` result, unreadable output, abort) are returned, never thrown; only invalid
 * options throw (`ClaudeCliError`), before anything is spawned.
 */
export async function runClaudeTurn(options: RunClaudeTurnOptions): Promise<ClaudeTurnResult> {
  validateTurnOptions(options);
  const args = buildClaudeArgs(options);
  if (options.signal?.aborted === true) {
    return failure("aborted", "The turn was aborted before Claude Code was started.");
  }
  const executable = options.claudePath.includes("/")
    ? resolve(options.claudePath)
    : options.claudePath;
  const preflightFailure = await checkBeforeSpawn(executable, options.cwd);
  if (preflightFailure !== null) return preflightFailure;
  return superviseTurn(executable, args, options);
}

function superviseTurn(
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
    let terminatedBy: "timeout" | "aborted" | "after_result" | "callback_error" | null = null;
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

interface TurnObservation {
  readonly timeoutMs: number;
  readonly killGraceMs: number;
  readonly resultEvent: ClaudeResultEvent | null;
  readonly initSessionId: string | null;
  readonly firstInvalidLine: string | null;
  readonly stderrTail: string;
  readonly exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  readonly terminatedBy: "timeout" | "aborted" | "after_result" | "callback_error" | null;
  readonly escalatedToSigkill: boolean;
  readonly events: readonly ClaudeStreamEvent[];
}

/** Decides the outcome once the child is gone and its output is read. */
function classify(observed: TurnObservation): ClaudeTurnResult {
  const exitCode = observed.exit?.code ?? null;
  const base = {
    sessionId: observed.initSessionId,
    totalCostUsd: observed.resultEvent === null ? null : totalCostOf(observed.resultEvent),
    exitCode,
    stderrTail: observed.stderrTail,
    runtimeError: null,
  };
  const result = observed.resultEvent;

  if (result === null) {
    const how = observed.escalatedToSigkill
      ? `it ignored SIGTERM and was killed (SIGKILL) after ${observed.killGraceMs} ms`
      : "its process group was terminated (SIGTERM)";
    if (observed.terminatedBy === "aborted") {
      return {
        ok: false,
        reason: "aborted",
        message: `The turn was aborted; ${how}.`,
        ...base,
      };
    }
    if (observed.terminatedBy === "timeout") {
      return {
        ok: false,
        reason: "timeout",
        message: `Claude Code gave no result within ${observed.timeoutMs} ms; ${how}. Raise the turn timeout if turns legitimately take longer.`,
        ...base,
      };
    }
    const signal = observed.exit?.signal ?? null;
    if (signal !== null || (exitCode !== null && exitCode !== 0)) {
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${exitCode}`;
      return {
        ok: false,
        reason: "crashed",
        message: `Claude Code ${how} before reporting a result.${stderrHint(observed.stderrTail)}`,
        ...base,
      };
    }
    if (observed.firstInvalidLine !== null) {
      return protocolFailure(base, observed.firstInvalidLine);
    }
    return {
      ok: false,
      reason: "protocol",
      message:
        "Claude Code exited without a result event. Check that the configured binary is Claude Code and supports --output-format stream-json.",
      ...base,
    };
  }

  if (result.is_error === true) {
    return {
      ok: false,
      reason: "is_error",
      message: describeErrorResult(result),
      ...base,
      runtimeError: runtimeErrorOf(result),
    };
  }
  if (observed.firstInvalidLine !== null) {
    return protocolFailure(base, observed.firstInvalidLine);
  }
  if (result.is_error !== false) {
    return {
      ok: false,
      reason: "protocol",
      message: "Claude Code's result event has no boolean is_error, so success cannot be told.",
      ...base,
    };
  }
  const sessionId = observed.initSessionId ?? sessionIdOf(result);
  if (sessionId === null) {
    return {
      ok: false,
      reason: "protocol",
      message: "Claude Code reported a result but never named its session (no session_id).",
      ...base,
    };
  }
  return {
    ok: true,
    sessionId,
    resultText: typeof result.result === "string" ? result.result : "",
    totalCostUsd: base.totalCostUsd,
    events: observed.events,
    lastMessageId: lastAgentMessageId(observed.events),
  };
}

/**
 * The uuid of the last message the agent itself wrote in the main conversation: subagents'
 * events carry a `parent_tool_use_id` and live in their own transcripts, and a synthetic
 * message is the runtime's, not part of what the model said.
 */
function lastAgentMessageId(events: readonly ClaudeStreamEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event === undefined || event.type !== "assistant") continue;
    if (event["parent_tool_use_id"] !== null && event["parent_tool_use_id"] !== undefined) continue;
    if (isSyntheticAssistantEvent(event)) continue;
    const uuid = event["uuid"];
    if (typeof uuid === "string" && uuid !== "") return uuid;
  }
  return null;
}

function protocolFailure(
  base: Omit<ClaudeTurnFailure, "ok" | "reason" | "message">,
  line: string,
): ClaudeTurnFailure {
  const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
  return {
    ok: false,
    reason: "protocol",
    message: `Claude Code wrote a line that is not a stream-json event: ${JSON.stringify(shown)}.`,
    ...base,
  };
}

/** The CLI's own words: `result` text for API errors, `errors[]` for execution errors. */
function describeErrorResult(result: ClaudeResultEvent): string {
  const subtype = typeof result.subtype === "string" ? result.subtype : "unknown";
  const detail =
    typeof result.result === "string" && result.result !== ""
      ? result.result
      : Array.isArray(result.errors)
        ? result.errors.filter((e): e is string => typeof e === "string").join("; ")
        : "";
  // API errors arrive with subtype "success" and is_error true; naming that subtype would
  // only confuse a reader, every other subtype says what kind of error it was.
  const kind = subtype === "success" ? "" : ` (${subtype})`;
  return detail === ""
    ? `Claude Code reported an error${kind} without details.`
    : `Claude Code reported an error${kind}: ${detail}`;
}

function stderrHint(stderrTail: string): string {
  const lastLine = stderrTail.trimEnd().split("\n").pop()?.trim() ?? "";
  return lastLine === ""
    ? ""
    : ` Its last words on stderr: ${JSON.stringify(lastLine.slice(0, 300))}.`;
}

async function checkBeforeSpawn(
  executable: string,
  cwd: string,
): Promise<ClaudeTurnFailure | null> {
  const cwdStat = await stat(cwd).catch(() => null);
  if (cwdStat === null || !cwdStat.isDirectory()) {
    return failure(
      "spawn_failed",
      `The working directory ${JSON.stringify(cwd)} does not exist or is not a directory; create it before starting a turn.`,
    );
  }
  if (!isAbsolute(executable)) return null; // a bare name: the spawn looks it up on PATH
  const binaryStat = await stat(executable).catch(() => null);
  if (binaryStat === null) {
    return failure(
      "binary_missing",
      `Claude Code was not found at ${JSON.stringify(executable)}. Install @anthropic-ai/claude-code or configure the path of the claude binary.`,
    );
  }
  const executableFile =
    binaryStat.isFile() &&
    (await access(executable, constants.X_OK).then(
      () => true,
      () => false,
    ));
  if (!executableFile) {
    return failure(
      "binary_missing",
      `${JSON.stringify(executable)} is not an executable file. Point the claude path at the Claude Code binary (or chmod +x it).`,
    );
  }
  return null;
}

function spawnFailure(executable: string, error: unknown): ClaudeTurnFailure {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "ENOENT" || code === "EACCES") {
    return failure(
      "binary_missing",
      `Claude Code could not be executed as ${JSON.stringify(executable)} (${code}). Install @anthropic-ai/claude-code or configure the path of the claude binary.`,
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  return failure("spawn_failed", `Claude Code could not be started: ${detail}.`);
}

function failure(reason: ClaudeTurnFailureReason, message: string): ClaudeTurnFailure {
  return {
    ok: false,
    reason,
    message,
    sessionId: null,
    totalCostUsd: null,
    exitCode: null,
    stderrTail: "",
    runtimeError: null,
  };
}

function definedEntries(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

function validateTurnOptions(options: RunClaudeTurnOptions): void {
  const nonEmpty = (path: string, value: unknown): void => {
    if (typeof value !== "string" || value === "") {
      throw new ClaudeCliError("invalid_option", path, `${path} must be a non-empty string.`);
    }
  };
  nonEmpty("claudePath", options.claudePath);
  nonEmpty("cwd", options.cwd);
  if (typeof options.prompt !== "string" || options.prompt.trim() === "") {
    throw new ClaudeCliError(
      "invalid_option",
      "prompt",
      "prompt must contain text: Claude Code refuses a print-mode turn without input.",
    );
  }
  if (typeof options.env !== "object" || (options.env as unknown) === null) {
    throw new ClaudeCliError("invalid_option", "env", "env must be an object of strings.");
  }
  const timer = (path: string, value: unknown, min: number): void => {
    if (
      typeof value !== "number" ||
      !Number.isInteger(value) ||
      value < min ||
      value > MAX_TIMER_MS
    ) {
      throw new ClaudeCliError(
        "invalid_option",
        path,
        `${path} must be a whole number of milliseconds from ${min} to ${MAX_TIMER_MS}.`,
      );
    }
  };
  timer("timeoutMs", options.timeoutMs, 1);
  if (options.killGraceMs !== undefined) timer("killGraceMs", options.killGraceMs, 0);
}
