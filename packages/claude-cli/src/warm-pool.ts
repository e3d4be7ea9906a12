import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { WarmClaudeProcess } from "./warm-process.ts";

/**
 * Why a turn did not run in a kept ("warm") process, so it started one ("cold"). Stored on the
 * turn and sent in its events, so anyone can tell why a message paid for a process start.
 */
export type ColdReason =
  /** This instance keeps no process for the session (its first turn here, or none was kept). */
  | "no_warm_process"
  /** Warm turns are switched off (a cap of 0). */
  | "warm_disabled"
  /** The session starts here: there is nothing to continue. */
  | "new_session"
  /** The context the kept process read at start differs from what this turn renders. */
  | "context_changed"
  /** The session moved on without the kept process (another instance ran a turn of it). */
  | "session_moved"
  /** The kept process had exited on its own. */
  | "process_exited"
  /** The kept process was ended to stay within the cap (least recently used first). */
  | "evicted"
  /** The kept process was ended after waiting idle for too long. */
  | "idle_timeout"
  /** The session's previous turn failed, which ends its process: nothing of it may carry on. */
  | "previous_turn_failed";

export interface WarmPoolOptions {
  /** Warm processes kept at most; 0 switches warm turns off. */
  readonly capacity: number;
  /** A kept process idle this long is ended. */
  readonly idleMs: number;
  /** Told about every kept process that ends, with why (for logs and the watchdog). */
  readonly onEnded?: (key: string, process: WarmClaudeProcess, reason: ColdReason) => void;
}

interface Kept {
  readonly process: WarmClaudeProcess;
  readonly fingerprint: string;
  readonly timer: NodeJS.Timeout;
}

/** Where a session stands: its id and the message it continues from. */
export interface SessionPoint {
  readonly id: string;
  readonly at: string | null;
}

/** Where sessions stand now, by pool key. */
export type SessionPoints = ReadonlyMap<string, SessionPoint>;

export type Checkout =
  | { readonly process: WarmClaudeProcess; readonly reason: null }
  | { readonly process: null; readonly reason: ColdReason };

/** Reasons remembered for keys whose process ended, so the next turn can say why it is cold. */
const REMEMBERED_REASONS = 10_000;

/**
 * The warm processes of one service instance, one per session key. A process is kept after a
 * successful turn together with a fingerprint of everything its next request depends on (the
 * context bytes it read at start, its arguments and environment, and where the session stands
 * now); the next turn of the key gets it back only with the very same fingerprint. Anything
 * else ends it, and the turn starts a process cold, exactly as if none had been kept.
 *
 * While a turn runs, its process is checked out: it is not in the pool, cannot be evicted and
 * is not counted against the cap. Bounded by a cap (least recently used evicted first) and an
 * idle timeout.
 */
export class WarmProcessPool {
  readonly #options: WarmPoolOptions;
  /** Insertion order is use order: the first entry is the least recently used. */
  readonly #kept = new Map<string, Kept>();
  readonly #endedBecause = new Map<string, ColdReason>();
  readonly #ending = new Set<Promise<void>>();
  /** Processes of a key still on their way out: a new one for the key waits for them. */
  readonly #endingByKey = new Map<string, Set<Promise<void>>>();
  #closed = false;

  constructor(options: WarmPoolOptions) {
    if (!Number.isInteger(options.capacity) || options.capacity < 0) {
      throw new RangeError(
        `The warm process cap must be a whole number, 0 or more (got ${options.capacity}).`,
      );
    }
    if (!Number.isFinite(options.idleMs) || options.idleMs <= 0) {
      throw new RangeError(`The warm idle timeout must be above 0 ms (got ${options.idleMs}).`);
    }
    this.#options = options;
  }

  /** Processes kept now (checked-out ones are not counted). */
  get size(): number {
    return this.#kept.size;
  }

  /** The process ids of the kept processes (for measuring them). */
  pids(): number[] {
    return [...this.#kept.values()]
      .map((kept) => kept.process.pid)
      .filter((pid): pid is number => pid !== undefined);
  }

  /**
   * Takes the key's kept process for a turn when its fingerprint is `fingerprint`; otherwise
   * ends whatever was kept and says why the turn must start a process.
   */
  checkout(key: string, fingerprint: string): Checkout {
    if (this.#options.capacity === 0) return { process: null, reason: "warm_disabled" };
    const kept = this.#kept.get(key);
    if (kept === undefined) {
      const reason = this.#endedBecause.get(key) ?? "no_warm_process";
      this.#endedBecause.delete(key);
      return { process: null, reason };
    }
    this.#remove(key, kept);
    if (!kept.process.idle) {
      this.#end(key, kept.process, "process_exited");
      this.#endedBecause.delete(key);
      return { process: null, reason: "process_exited" };
    }
    if (kept.fingerprint !== fingerprint) {
      const reason =
        sessionPart(kept.fingerprint) === sessionPart(fingerprint)
          ? "context_changed"
          : "session_moved";
      this.#end(key, kept.process, reason);
      this.#endedBecause.delete(key);
      return { process: null, reason };
    }
    return { process: kept.process, reason: null };
  }

  /**
   * The checkout of a turn that continues `session` (null: it starts a new one) and whose
   * process would read what `contextDigest` stands for: the kept process when both match,
   * else null and why. A turn without a session can continue nothing: whatever the key kept
   * belongs to a session that ended, and is ended (`new_session`).
   */
  take(key: string, session: SessionPoint | null, contextDigest: string): Checkout {
    if (session === null) {
      this.discard(key, "new_session");
      // Said by this turn: not again by the next.
      this.#endedBecause.delete(key);
      return { process: null, reason: "new_session" };
    }
    return this.checkout(key, warmFingerprint(session, contextDigest));
  }

  /**
   * Keeps `process` for the key's next turn after a successful turn; `fingerprint` describes
   * the state that turn left. A process that has ended, or any when the pool is closed or off,
   * is ended instead.
   */
  keep(key: string, fingerprint: string, process: WarmClaudeProcess): void {
    if (this.#closed || this.#options.capacity === 0 || !process.idle) {
      this.#end(key, process, process.idle ? "warm_disabled" : "process_exited");
      return;
    }
    const previous = this.#kept.get(key);
    if (previous !== undefined && previous.process !== process) {
      this.#remove(key, previous);
      this.#end(key, previous.process, "session_moved");
    }
    const timer = setTimeout(() => {
      const current = this.#kept.get(key);
      if (current?.process !== process) return;
      this.#remove(key, current);
      this.#end(key, process, "idle_timeout");
    }, this.#options.idleMs);
    timer.unref();
    this.#kept.set(key, { process, fingerprint, timer });
    this.#endedBecause.delete(key);
    while (this.#kept.size > this.#options.capacity) {
      const [oldestKey, oldest] = this.#kept.entries().next().value as [string, Kept];
      this.#remove(oldestKey, oldest);
      this.#end(oldestKey, oldest.process, "evicted");
    }
  }

  /** Ends the key's kept process, if any (its session was reset, say). */
  discard(key: string, reason: ColdReason): void {
    const kept = this.#kept.get(key);
    if (kept === undefined) return;
    this.#remove(key, kept);
    this.#end(key, kept.process, reason);
  }

  /**
   * Ends a turn's process that is not kept (its turn failed, say); the next turn of the key
   * says why it starts cold, and waits in {@link settled} until this one has exited.
   */
  retire(key: string, process: WarmClaudeProcess, reason: ColdReason): void {
    this.#end(key, process, reason);
  }

  /**
   * Resolves once every process of `key` that is being ended has exited. A new process for
   * the key starts only then: one process per session, never two at once (an exiting CLI may
   * still write to the session's transcript).
   */
  async settled(key: string): Promise<void> {
    for (;;) {
      const pending = this.#endingByKey.get(key);
      if (pending === undefined || pending.size === 0) return;
      await Promise.all([...pending]);
    }
  }

  /**
   * Ends the kept processes whose fingerprint `isCurrent` no longer accepts (the session moved
   * on elsewhere, say): they could never be used again and only hold memory.
   */
  prune(isCurrent: (key: string, fingerprint: string) => boolean, reason: ColdReason): number {
    let ended = 0;
    for (const [key, kept] of [...this.#kept]) {
      if (isCurrent(key, kept.fingerprint)) continue;
      this.#remove(key, kept);
      this.#end(key, kept.process, reason);
      ended += 1;
    }
    return ended;
  }

  /**
   * Ends the kept processes whose session moved on without them (a turn of it ran on another
   * instance, or it ended): `points` tells where each kept key's session stands now, and a key
   * it leaves out has no session any more. Such processes could never run a turn again and
   * would only hold memory until their idle timeout.
   */
  async pruneMoved(points: (keys: readonly string[]) => Promise<SessionPoints>): Promise<number> {
    const keys = [...this.#kept.keys()];
    if (keys.length === 0) return 0;
    const current = await points(keys);
    return this.prune((key, fingerprint) => {
      const point = current.get(key);
      return point !== undefined && isAtSessionPoint(fingerprint, point);
    }, "session_moved");
  }

  /**
   * {@link pruneMoved} every `everyMs` until the returned stop is called. A failed pass (the
   * database briefly unreachable) is reported and the next one tries again.
   */
  pruneMovedEvery(
    everyMs: number,
    points: (keys: readonly string[]) => Promise<SessionPoints>,
    report: { onEnded(count: number): void; onError(error: unknown): void },
  ): () => void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      this.pruneMoved(points)
        .then(
          (ended) => {
            if (ended > 0) report.onEnded(ended);
          },
          (error: unknown) => {
            report.onError(error);
          },
        )
        .finally(() => {
          running = false;
        });
    }, everyMs);
    timer.unref();
    return () => {
      clearInterval(timer);
    };
  }

  /** Ends every kept process and keeps none from now on; resolves when all have exited. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const [key, kept] of [...this.#kept]) {
      this.#remove(key, kept);
      this.#end(key, kept.process, "no_warm_process");
    }
    while (this.#ending.size > 0) await Promise.all([...this.#ending]);
  }

  #remove(key: string, kept: Kept): void {
    clearTimeout(kept.timer);
    this.#kept.delete(key);
  }

  #end(key: string, process: WarmClaudeProcess, reason: ColdReason): void {
    this.#remember(key, reason);
    const byKey = this.#endingByKey.get(key) ?? new Set<Promise<void>>();
    this.#endingByKey.set(key, byKey);
    const ending: Promise<void> = process.end().finally(() => {
      this.#ending.delete(ending);
      byKey.delete(ending);
      if (byKey.size === 0 && this.#endingByKey.get(key) === byKey) this.#endingByKey.delete(key);
    });
    this.#ending.add(ending);
    byKey.add(ending);
    try {
      this.#options.onEnded?.(key, process, reason);
    } catch {
      // A listener's failure must not keep a process alive or break the pool.
    }
  }

  #remember(key: string, reason: ColdReason): void {
    this.#endedBecause.delete(key);
    this.#endedBecause.set(key, reason);
    if (this.#endedBecause.size > REMEMBERED_REASONS) {
      const oldest = this.#endedBecause.keys().next().value;
      if (oldest !== undefined) this.#endedBecause.delete(oldest);
    }
  }
}

/**
 * A warm fingerprint: the session part (which session, at which message) and the context part
 * (a digest of everything else the request depends on), so the pool can tell the two reasons
 * for a cold turn apart.
 */
export function warmFingerprint(
  session: { id: string; at: string | null },
  context: string,
): string {
  return `${session.id}@${session.at ?? ""}|${context}`;
}

/** Whether a fingerprint was taken at this point of this session. */
export function isAtSessionPoint(
  fingerprint: string,
  session: { id: string; at: string | null },
): boolean {
  return sessionPart(fingerprint) === sessionPart(warmFingerprint(session, ""));
}

function sessionPart(fingerprint: string): string {
  return fingerprint.slice(0, fingerprint.indexOf("|"));
}

/**
 * A digest of what a process reads at start besides the session: its arguments, its
 * environment and the files it loads as instructions (path and bytes). Length-prefixed, so no
 * two different inputs can run together into the same text.
 */
export function warmContextDigest(input: {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly files: ReadonlyArray<{ readonly path: string; readonly content: string }>;
}): string {
  const hash = createHash("sha256");
  const field = (text: string): void => {
    hash.update(`${Buffer.byteLength(text, "utf8")}:`);
    hash.update(text, "utf8");
  };
  field(`args ${input.args.length}`);
  for (const arg of input.args) field(arg);
  const env = Object.entries(input.env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  field(`env ${env.length}`);
  for (const [name, value] of env) {
    field(name);
    field(value);
  }
  const files = [...input.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  field(`files ${files.length}`);
  for (const file of files) {
    field(file.path);
    field(file.content);
  }
  return hash.digest("hex");
}

/**
 * The workspace files the CLI reads at start that the platform did not write (what
 * `findWorkspaceInstructionFiles` lists), as digest input: each path with the sha256 of its
 * bytes, so an agent's edit to one of them makes the next turn start a process that reads it.
 */
export async function startupFileDigests(
  workspace: string,
  paths: readonly string[],
): Promise<Array<{ path: string; content: string }>> {
  return Promise.all(
    paths.map(async (path) => {
      const bytes = await readFile(join(workspace, path)).catch(() => null);
      const content =
        bytes === null ? "unreadable" : createHash("sha256").update(bytes).digest("hex");
      return { path, content };
    }),
  );
}
