import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { resolve } from "node:path";
import { killProcessGroup } from "./process-group.ts";
import {
  isInitEvent,
  isResultEvent,
  LineSplitter,
  parseStreamLine,
  sessionIdOf,
  type ClaudeResultEvent,
  type ClaudeStreamEvent,
} from "./stream-json.ts";
import { definedEntries } from "./child-env.ts";
import {
  DEFAULT_KILL_GRACE_MS,
  turnOptionsProblem,
  validateProcessOptions,
  type WarmProcessOptions,
  type WarmTurnOptions,
} from "./turn-options.ts";
import { classify, type TerminationCause } from "./turn-observation.ts";
import { checkBeforeSpawn, spawnFailure } from "./turn-preflight.ts";
import { failure, type ClaudeTurnFailure, type ClaudeTurnResult } from "./turn-result.ts";

/**
 * One Claude Code process kept alive between the turns of a session ("warm"): started like a
 * cold turn (`claude -p … [--resume <id> --resume-session-at <uuid>]`) plus
 * `--input-format stream-json`, it reads each later user message as a JSON line on standard
 * input and answers with the same stream-json events, ending each turn with a `result`.
 * Measured with the pinned CLI: a warm turn sends the same request bytes as a cold resume of
 * the same session while the instruction files it read at start are unchanged (WIRE-NOTES.md),
 * and skips the process start. The caller decides when warm is allowed: the process keeps the
 * CLAUDE.md it read at start.
 *
 * This is the one way this package runs the CLI: the apps' cold and warm turns, and every test,
 * benchmark and wire probe (a one-shot turn is `runOneTurn` in `./testing`: start, one turn,
 * end).
 *
 * Rules kept here: one turn at a time; a turn that fails in any way (error result, timeout,
 * abort, crash) ends the process, so nothing of a failed turn is carried into a later one;
 * the process runs in its own process group, ended as a whole.
 */
const STDERR_TAIL_CHARS = 8192;

interface CurrentTurn {
  readonly options: WarmTurnOptions;
  readonly events: ClaudeStreamEvent[];
  readonly settle: (result: ClaudeTurnResult) => void;
  firstInvalidLine: string | null;
  terminatedBy: TerminationCause | null;
}

export class WarmClaudeProcess {
  private readonly child: ChildProcessWithoutNullStreams | null;
  private readonly killGraceMs: number;
  private readonly splitter = new LineSplitter();
  private current: CurrentTurn | null = null;
  private initSessionId: string | null = null;
  private stderrTail = "";
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private escalatedToSigkill = false;
  private spawnError: unknown = null;
  private ending: Promise<void> | null = null;
  private readonly exited: Promise<void>;
  /** Resolves once the spawn succeeded or failed (`spawn` or `error`), whichever comes first. */
  private readonly spawned: Promise<void>;
  readonly tag: string | undefined;
  private readonly claudePath: string;
  /** Why the process could not be started (a missing binary, a missing directory), if so. */
  private readonly notStarted: ClaudeTurnFailure | null;

  private constructor(options: WarmProcessOptions, notStarted: ClaudeTurnFailure | null) {
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.tag = options.tag;
    this.claudePath = options.claudePath;
    this.notStarted = notStarted;
    let child: ChildProcessWithoutNullStreams | null = null;
    if (notStarted !== null) {
      this.child = null;
      this.exit = { code: null, signal: null };
      this.exited = Promise.resolve();
      this.spawned = Promise.resolve();
      return;
    }
    try {
      child = spawn(this.claudePath, [...options.args, "--input-format", "stream-json"], {
        cwd: options.cwd,
        env: definedEntries(options.env),
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      this.spawnError = error;
    }
    this.child = child;
    if (child === null) {
      this.exit = { code: null, signal: null };
      this.exited = Promise.resolve();
      this.spawned = Promise.resolve();
      return;
    }
    this.spawned = new Promise((done) => {
      child.once("spawn", done);
      child.once("error", () => {
        done();
      });
    });
    this.exited = new Promise((resolve) =>
      child.once("close", () => {
        resolve();
      }),
    );
    child.on("error", (error) => {
      if (child.pid === undefined) this.spawnError = error;
    });
    child.stdin.on("error", () => undefined);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      for (const line of this.splitter.push(chunk)) this.handleLine(line);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    child.on("exit", (code, signal) => {
      this.exit = { code, signal };
      // Whatever the CLI started goes with it.
      if (child.pid !== undefined) killProcessGroup(child.pid, "SIGKILL");
    });
    child.on("close", () => {
      for (const line of this.splitter.end()) this.handleLine(line);
      this.exit ??= { code: null, signal: null };
      this.settleCurrent(null);
    });
  }

  /**
   * Starts the process; it waits for its first message. Checks come first: invalid options
   * reject with `ClaudeCliError` (`invalid_option`) before anything is spawned; a missing
   * binary or working directory, or a spawn that fails, is the first turn's failure
   * (`binary_missing`, `spawn_failed`). Resolves once the spawn succeeded or failed.
   */
  static async start(options: WarmProcessOptions): Promise<WarmClaudeProcess> {
    validateProcessOptions(options);
    // A path with a slash is the caller's (relative to its working directory), not the child's.
    const claudePath = options.claudePath.includes("/")
      ? resolve(options.claudePath)
      : options.claudePath;
    const notStarted = await checkBeforeSpawn(claudePath, options.cwd);
    const { watchdog, tag } = options;
    // Tracked before the spawn: a service that dies right after it still has it ended.
    if (watchdog !== undefined && tag !== undefined) watchdog.track(tag);
    const process = new WarmClaudeProcess({ ...options, claudePath }, notStarted);
    if (watchdog !== undefined && tag !== undefined) {
      void process.whenEnded().then(() => {
        watchdog.untrack(tag);
      });
    }
    // A bare name missing from PATH fails only now (ENOENT): the first turn reports it.
    await process.spawned;
    return process;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Whether a turn may run now: the process lives and no turn runs. */
  get idle(): boolean {
    return this.exit === null && this.ending === null && this.current === null;
  }

  get ended(): boolean {
    return this.exit !== null;
  }

  /** Resolves once the process has exited and its output is closed (whatever ended it). */
  whenEnded(): Promise<void> {
    return this.exited;
  }

  /**
   * Sends one user message and resolves with the turn's outcome; a failed turn ends the
   * process. Runtime failures are results, never rejections; invalid options (a prompt
   * without text, a timeout that is not a whole number of ms up to 2³¹−1) reject with
   * `ClaudeCliError` and send nothing.
   */
  runTurn(options: WarmTurnOptions): Promise<ClaudeTurnResult> {
    const invalid = turnOptionsProblem(options);
    if (invalid !== null) return Promise.reject(invalid);
    if (this.current !== null) {
      return Promise.reject(new Error("A turn is already running in this warm process."));
    }
    if (this.notStarted !== null) return Promise.resolve(this.notStarted);
    if (this.spawnError !== null) {
      return Promise.resolve(spawnFailure(this.claudePath, this.spawnError));
    }
    const child = this.child;
    if (child === null || child.pid === undefined || this.exit !== null || this.ending !== null) {
      return Promise.resolve(
        failure("crashed", "The warm Claude Code process is not running; run the turn cold."),
      );
    }
    return new Promise<ClaudeTurnResult>((resolve) => {
      const timer = setTimeout(() => {
        this.terminate("timeout");
      }, options.timeoutMs);
      const onAbort = (): void => {
        this.terminate("aborted");
      };
      const turn: CurrentTurn = {
        options,
        events: [],
        firstInvalidLine: null,
        terminatedBy: null,
        settle: (result) => {
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", onAbort);
          this.current = null;
          // Nothing of a failed turn may reach a later one: the process goes with it.
          if (!result.ok) void this.end();
          resolve(result);
        },
      };
      this.current = turn;
      if (options.signal?.aborted === true) {
        this.terminate("aborted");
        return;
      }
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const message = { type: "user", message: { role: "user", content: options.prompt } };
      child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  /** Ends the process: its input closes, then its process group is terminated after the grace. */
  end(): Promise<void> {
    this.ending ??= (async () => {
      const child = this.child;
      if (child === null || this.exit !== null) return;
      child.stdin.end();
      const grace = (): Promise<void> =>
        new Promise((resolve) => setTimeout(resolve, this.killGraceMs).unref());
      await Promise.race([this.exited, grace()]);
      if (this.running() && child.pid !== undefined) {
        killProcessGroup(child.pid, "SIGTERM");
        await Promise.race([this.exited, grace()]);
        if (this.running()) {
          this.escalatedToSigkill = true;
          killProcessGroup(child.pid, "SIGKILL");
        }
      }
      await this.exited;
    })();
    return this.ending;
  }

  /** Read through a call: the exit arrives while an `await` waits, which narrowing cannot see. */
  private running(): boolean {
    return this.exit === null;
  }

  /** A timeout or an abort: the process group is terminated at once, killed after the grace. */
  private terminate(cause: TerminationCause): void {
    const turn = this.current;
    const child = this.child;
    if (turn === null || turn.terminatedBy !== null || child?.pid === undefined) return;
    turn.terminatedBy = cause;
    const pid = child.pid;
    this.ending ??= (async () => {
      killProcessGroup(pid, "SIGTERM");
      await Promise.race([
        this.exited,
        new Promise<void>((resolve) => setTimeout(resolve, this.killGraceMs).unref()),
      ]);
      if (this.running()) {
        this.escalatedToSigkill = true;
        killProcessGroup(pid, "SIGKILL");
      }
      await this.exited;
    })();
  }

  private handleLine(line: string): void {
    const parsed = parseStreamLine(line);
    if (parsed.kind === "blank") return;
    const turn = this.current;
    if (parsed.kind === "invalid") {
      if (turn !== null) turn.firstInvalidLine ??= line;
      return;
    }
    const event = parsed.event;
    if (isInitEvent(event)) this.initSessionId ??= sessionIdOf(event);
    if (turn === null) return;
    turn.events.push(event);
    try {
      turn.options.onEvent?.(event);
    } catch {
      // A listener's failure is the caller's to handle; the turn's outcome does not change.
    }
    if (isResultEvent(event)) this.settleCurrent(event);
  }

  private settleCurrent(resultEvent: ClaudeResultEvent | null): void {
    const turn = this.current;
    if (turn === null) return;
    if (this.spawnError !== null) {
      turn.settle(spawnFailure(this.claudePath, this.spawnError));
      return;
    }
    turn.settle(
      classify({
        timeoutMs: turn.options.timeoutMs,
        killGraceMs: this.killGraceMs,
        resultEvent,
        initSessionId: this.initSessionId,
        firstInvalidLine: turn.firstInvalidLine,
        stderrTail: this.stderrTail,
        // A turn settled by its result ran in a process that lives on.
        exit: resultEvent === null ? this.exit : null,
        terminatedBy: turn.terminatedBy,
        escalatedToSigkill: this.escalatedToSigkill,
        events: turn.events,
      }),
    );
  }
}
