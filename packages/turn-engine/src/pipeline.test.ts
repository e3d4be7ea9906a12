import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildClaudeArgs, type WarmClaudeProcess, WarmProcessPool } from "@talkide/claude-cli";
import { FAKE_CLAUDE_PATH, readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { HeldEvents, TurnEvents } from "./beside.ts";
import {
  runTurnPipeline,
  type TurnAttempt,
  type TurnContext,
  type TurnPipelineHost,
} from "./pipeline.ts";
import { TurnFailure } from "./turn-failure.ts";
import { endSession } from "./store/session-store.ts";
import { openEngineTestDb, seedSession, type EngineTestDb } from "./test-support/engine-db.ts";

// The pipeline against a fake host (it writes down every call and event) and real parts
// below it: the engine's tables in a real database, a real warm pool, the fake `claude` as a
// real child process, real directories.

/** The fake host's events: a name, in the order the host would send them. */
interface Events {
  emit(name: string): void;
}

class Held implements Events {
  private readonly held: string[] = [];
  private target: Events | null = null;
  emit(name: string): void {
    if (this.target === null) this.held.push(name);
    else this.target.emit(name);
  }
  releaseTo(target: Events): void {
    this.target = target;
    for (const name of this.held.splice(0)) target.emit(name);
  }
}

/** The open session a test starts from (stored as `s1`). */
interface Session {
  /** The CLI's session of its last successful turn; null: the session has not begun. */
  readonly runtimeId: string | null;
  /** Pinned to what the host runs now. */
  readonly current: boolean;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
let engine: EngineTestDb;
beforeAll(async () => {
  engine = await openEngineTestDb();
});
afterAll(async () => {
  await engine.close();
});
/** Each fake host's conversation is a scope of its own. */
let hosts = 0;

interface FakeOptions {
  readonly session?: Session | null;
  readonly scenario?: string;
  readonly announce?: boolean;
  /** Puts a turn aborted while the host stops back in line (else fails it). */
  readonly interrupts?: boolean;
  readonly recordsWhileRunning?: boolean;
  /** Stages that throw. */
  readonly failIn?: "context" | "alongside" | "record" | "store";
  /** A file above the workspace that breaks its isolation. */
  readonly notIsolated?: boolean;
  /** Each new process gets a credential (as a host's gateway gives one). */
  readonly credential?: boolean;
}

async function fakeHost(options: FakeOptions = {}) {
  const root = await mkdtemp(join(tmpdir(), "turn-engine-pipeline-"));
  hosts += 1;
  const scope = `conversation-${hosts}`;
  const seeded =
    options.session === undefined || options.session === null
      ? null
      : await seedSession(
          engine.db,
          scope,
          options.session.current ? "now" : "before",
          options.session.runtimeId,
        );
  const label = (id: string): string => (id === seeded?.id ? "s1" : id);
  const retired: string[] = [];
  const pool = new WarmProcessPool({
    capacity: 2,
    idleMs: 60_000,
    onEnded: (_key, _process, reason) => retired.push(reason),
  });
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  cleanups.push(() => pool.close());
  const workspaceDir = join(root, "workspaces", "one");
  const claudeConfigDir = join(root, "claude");
  await mkdir(workspaceDir, { recursive: true });
  await mkdir(claudeConfigDir, { recursive: true });
  if (options.notIsolated === true) await writeFile(join(root, "CLAUDE.md"), "Above.\n");
  const recordFile = join(root, "records.jsonl");
  const steps: string[] = [];
  const heard: string[] = [];
  const live: Events = { emit: (name) => heard.push(name) };
  const events: TurnEvents<Events> = {
    live,
    hold: (): HeldEvents<Events> => new Held(),
  };
  const failures: Array<{ code: string; instructionFiles: readonly string[] | null }> = [];
  const stored: string[] = [];
  /** The kind of every outcome the pipeline handed to `finish`, as it handed it. */
  const finished: string[] = [];
  const started: WarmClaudeProcess[] = [];
  const transcripts: unknown[] = [];
  let attempts = 0;
  const fail = (stage: FakeOptions["failIn"]): void => {
    if (options.failIn === stage) throw new TurnFailure(`${stage}_failed`, `${stage} failed`);
  };
  const host: TurnPipelineHost<Events, TurnContext, TurnAttempt<Events>> = {
    pool,
    db: engine.db,
    events,
    session: { scope, pin: "now" },
    prepareContext: async (to) => {
      steps.push("context");
      await Promise.resolve();
      fail("context");
      to.emit("context.written");
      return { workspaceDir, claudeConfigDir };
    },
    workspaceGuarded: (guarded, to) => {
      steps.push(guarded.ok ? "guarded" : `refused ${guarded.code}`);
      if (guarded.ok) to.emit("workspace.checked");
    },
    endSession: async (session, end, to) => {
      steps.push(`end ${label(session.id)} (${end.reason})`);
      await endSession(engine.db, session.id, end.reason);
      to.emit(end.reason === "unknown_session" ? "session.unknown" : "session.reset");
    },
    ...(options.announce === false
      ? {}
      : {
          announce: (taken, session) => {
            steps.push(`announce ${taken?.kind ?? "none"}`);
            live.emit(`turn.started ${taken?.kind ?? "cold"} resume=${String(session !== null)}`);
          },
        }),
    beginAttempt: (session, point) => {
      attempts += 1;
      const turnId = `turn-${attempts}`;
      steps.push(
        `attempt ${session === null ? "new" : label(session.id)}${point === null ? "" : ` at ${point.id}`}`,
      );
      return Promise.resolve({
        turnId,
        key: "conversation",
        sessionKey: session?.id ?? null,
        previousCumulativeCostUsd: null,
        userKey: "user-1",
        cold: {
          claudePath: FAKE_CLAUDE_PATH,
          cwd: workspaceDir,
          args: buildClaudeArgs(point === null ? {} : { resumeSessionId: point.id }),
          env: {
            FAKE_CLAUDE_RECORD: recordFile,
            FAKE_CLAUDE_STATE_DIR: join(root, "state"),
            FAKE_CLAUDE_SCENARIO: options.scenario ?? "ok",
          },
          markerVariable: "ENGINE_TURN_ID",
          killGraceMs: 300,
          ...(options.credential === true
            ? {
                credential: () => ({
                  env: { ANTHROPIC_API_KEY: "process-token" },
                  attach: (turn: { turnId: string; userKey: string | null }) => {
                    steps.push(`attach ${turn.turnId} ${turn.userKey ?? "nobody"}`);
                  },
                  detach: () => {
                    steps.push("detach");
                  },
                  revoke: () => undefined,
                }),
              }
            : {}),
        },
        digest: () => Promise.resolve("digest"),
        whileTaking: async () => {
          steps.push("alongside");
          await new Promise((resolve) => setTimeout(resolve, 5));
          fail("alongside");
        },
        beforeColdStart: () => {
          steps.push("before cold start");
          return Promise.resolve();
        },
        whileRunning: (to: Events) => {
          steps.push("report");
          to.emit("report");
          return Promise.resolve();
        },
        ...(options.recordsWhileRunning === true ? { recordsWhileRunning: true } : {}),
      });
    },
    recordProcess: async (attempt, taken) => {
      steps.push(`record ${taken.kind} ${taken.marker}`);
      started.push(taken.process);
      await new Promise((resolve) => setTimeout(resolve, 20));
      fail("record");
      steps.push("recorded");
    },
    sendMessage: (attempt, taken, to, signal) => {
      steps.push("send");
      return taken.process.runTurn({
        prompt: "Hello",
        timeoutMs: 120_000,
        signal,
        onEvent: () => {
          to.emit("agent");
        },
      });
    },
    finish: (end) => {
      if (end.kind === "error") {
        const code = end.error instanceof TurnFailure ? end.error.code : "internal_error";
        steps.push(`failed ${code}`);
        failures.push({ code, instructionFiles: end.progress.instructionFiles });
        live.emit("turn.failed");
        return Promise.resolve();
      }
      const { outcome } = end;
      finished.push(outcome.kind);
      if (outcome.kind === "interrupted" && options.interrupts === true) {
        steps.push(`interrupted ${outcome.kind}`);
        return Promise.resolve();
      }
      // A host that does not put work back fails an interrupted turn.
      const kind = outcome.kind === "interrupted" ? "failed" : outcome.kind;
      steps.push(`store ${kind}`);
      transcripts.push(end.transcript);
      fail("store");
      stored.push(kind);
      live.emit(`turn.${kind}`);
      return Promise.resolve();
    },
  };
  /** Every process the turn was given has ended (retired, not kept). */
  const allEnded = async (): Promise<boolean> => {
    await Promise.all(started.map((process) => process.whenEnded()));
    return started.length > 0 && started.every((process) => process.ended);
  };
  return {
    host,
    pool,
    steps,
    heard,
    failures,
    stored,
    finished,
    transcripts,
    recordFile,
    root,
    allEnded,
    retired,
  };
}

describe("the turn pipeline", () => {
  it("attaches the turn to the process's credential while its message runs", async () => {
    const fake = await fakeHost({ credential: true });
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.steps).toEqual([
      "context",
      "guarded",
      "attempt new",
      "before cold start",
      "alongside",
      "announce cold",
      "attach turn-1 user-1",
      "record cold turn-1",
      "recorded",
      "send",
      "report",
      "detach",
      "store succeeded",
    ]);
    const [record] = await readFakeClaudeRecords(fake.recordFile);
    expect(record?.env["ANTHROPIC_API_KEY"]).toBe("process-token");
  });

  it("runs the stages in order and reports the opening after the turn's first event", async () => {
    const fake = await fakeHost();
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.steps).toEqual([
      "context",
      "guarded",
      "attempt new",
      "before cold start",
      "alongside",
      "announce cold",
      "record cold turn-1",
      "recorded",
      "send",
      "report",
      "store succeeded",
    ]);
    // The opening in stage order after `turn.started`; the host's report before the agent.
    expect(fake.heard).toEqual([
      "turn.started cold resume=false",
      "context.written",
      "workspace.checked",
      "report",
      ...fake.heard.slice(4, -1).map(() => "agent"),
      "turn.succeeded",
    ]);
    expect(fake.heard.slice(4, -1).length).toBeGreaterThan(0);
    // A success keeps its process: the next turn takes it warm.
    expect(fake.pool.size).toBe(1);
  });

  it("records the process before the message is sent, unless the host records beside the run", async () => {
    const before = await fakeHost();
    await runTurnPipeline(before.host, new AbortController().signal);
    expect(before.steps.indexOf("recorded")).toBeLessThan(before.steps.indexOf("send"));

    const beside = await fakeHost({ recordsWhileRunning: true });
    await runTurnPipeline(beside.host, new AbortController().signal);
    expect(beside.steps.indexOf("send")).toBeLessThan(beside.steps.indexOf("recorded"));
    expect(beside.steps.indexOf("recorded")).toBeLessThan(beside.steps.indexOf("store succeeded"));
  });

  it("sends nothing when the process record fails before the message, and retires the process", async () => {
    const fake = await fakeHost({ failIn: "record" });
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.steps).not.toContain("send");
    expect(fake.failures).toEqual([{ code: "record_failed", instructionFiles: [] }]);
    expect(fake.pool.size).toBe(0);
    expect(await fake.allEnded()).toBe(true);
    // The process started, and got no message.
    expect(await readFakeClaudeRecords(fake.recordFile)).toEqual([]);
  });

  it("ends a session pinned elsewhere before the turn and starts a new one", async () => {
    const fake = await fakeHost({ session: { runtimeId: "r1", current: false } });
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.steps.slice(0, 4)).toEqual([
      "context",
      "guarded",
      "end s1 (pinned_elsewhere)",
      "attempt new",
    ]);
    // What the session stage reported comes first, however the stages interleaved.
    expect(fake.heard.slice(0, 4)).toEqual([
      "turn.started cold resume=false",
      "session.reset",
      "context.written",
      "workspace.checked",
    ]);
  });

  // Decided once (README): a session begins with its first successful turn. The hosts' suites
  // assert the same through their APIs (the backend's turns.test.ts, the daemon's session suite).
  it.each([
    ["pinned to what the host runs now", true],
    ["pinned elsewhere", false],
  ])(
    "starts the CLI afresh in a session that has not begun (%s), ending nothing",
    async (_name, current) => {
      const fake = await fakeHost({ session: { runtimeId: null, current } });
      await runTurnPipeline(fake.host, new AbortController().signal);
      expect(fake.steps.slice(0, 3)).toEqual(["context", "guarded", "attempt s1"]);
      expect(fake.steps.some((step) => step.startsWith("end "))).toBe(false);
      expect(fake.heard).not.toContain("session.reset");
      // No `--resume`: nothing of the session is the CLI's to continue.
      expect(fake.heard[0]).toBe("turn.started cold resume=false");
      const [record] = await readFakeClaudeRecords(fake.recordFile);
      expect(record?.argv).not.toContain("--resume");
      expect(fake.stored).toEqual(["succeeded"]);
    },
  );

  it("restarts once in a new session when the CLI does not know the resumed one", async () => {
    const fake = await fakeHost({ session: { runtimeId: "gone", current: true } });
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.steps).toEqual([
      "context",
      "guarded",
      "attempt s1 at gone",
      "before cold start",
      "alongside",
      "announce cold",
      "record cold turn-1",
      "recorded",
      "send",
      "report",
      "end s1 (unknown_session)",
      "attempt new",
      "before cold start",
      "alongside",
      "record cold turn-2",
      "recorded",
      "send",
      "store succeeded",
    ]);
    expect(fake.stored).toEqual(["succeeded"]);
    // One turn.started; the second attempt's process is new and kept.
    expect(fake.heard.filter((name) => name.startsWith("turn.started"))).toHaveLength(1);
    expect(fake.pool.size).toBe(1);
  });

  it("hands a turn aborted while the host stops back to the host", async () => {
    const fake = await fakeHost({ scenario: "hang", interrupts: true });
    const stop = new AbortController();
    const running = runTurnPipeline(fake.host, stop.signal);
    await expect.poll(() => fake.steps.includes("send"), { timeout: 60_000 }).toBe(true);
    stop.abort();
    await running;
    expect(fake.steps.slice(-1)).toEqual(["interrupted interrupted"]);
    expect(fake.stored).toEqual([]);
    expect(fake.pool.size).toBe(0);
    expect(await fake.allEnded()).toBe(true);
  });

  it("hands an aborted turn to every host as interrupted, whatever the host does with it", async () => {
    const fake = await fakeHost({ scenario: "hang" });
    const stop = new AbortController();
    const running = runTurnPipeline(fake.host, stop.signal);
    await expect.poll(() => fake.steps.includes("send"), { timeout: 60_000 }).toBe(true);
    stop.abort();
    await running;
    // The pipeline's part: classified as interrupted (the host is stopping), its process
    // retired. This fake host fails it, as the backend does.
    expect(fake.finished).toEqual(["interrupted"]);
    expect(fake.stored).toEqual(["failed"]);
    expect(fake.pool.size).toBe(0);
    expect(await fake.allEnded()).toBe(true);
  });

  it("fails before any process starts: the first event still comes first", async () => {
    const fake = await fakeHost({ failIn: "context" });
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.steps).toEqual(["context", "announce none", "failed context_failed"]);
    expect(fake.failures).toEqual([{ code: "context_failed", instructionFiles: null }]);
    expect(fake.heard).toEqual(["turn.started cold resume=false", "turn.failed"]);
    expect(await readFakeClaudeRecords(fake.recordFile)).toEqual([]);
  });

  it("refuses a workspace that is not isolated: nothing is started", async () => {
    const fake = await fakeHost({ notIsolated: true, announce: false });
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.steps).toEqual([
      "context",
      "refused workspace_not_isolated",
      "failed workspace_not_isolated",
    ]);
    // Without `announce`, the host hears events as they happen.
    expect(fake.heard).toEqual(["context.written", "turn.failed"]);
  });

  it("reports, after the turn's first event, only the session's part of an opening the guard refused", async () => {
    const fake = await fakeHost({ notIsolated: true });
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.heard).toEqual(["turn.started cold resume=false", "turn.failed"]);
    expect(fake.failures).toEqual([{ code: "workspace_not_isolated", instructionFiles: null }]);
  });

  it("retires a process taken beside a stage that failed", async () => {
    const fake = await fakeHost({ failIn: "alongside" });
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.steps).not.toContain("send");
    expect(fake.failures).toEqual([{ code: "alongside_failed", instructionFiles: [] }]);
    expect(fake.pool.size).toBe(0);
    expect(fake.retired).toEqual(["previous_turn_failed"]);
  });

  it("fails after the process started: the process is retired, not kept", async () => {
    const fake = await fakeHost({ failIn: "store" });
    await runTurnPipeline(fake.host, new AbortController().signal);
    expect(fake.steps.slice(-2)).toEqual(["store succeeded", "failed store_failed"]);
    expect(fake.failures).toEqual([{ code: "store_failed", instructionFiles: [] }]);
    expect(fake.pool.size).toBe(0);
    expect(await fake.allEnded()).toBe(true);
  });
});
