import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc } from "@fast-check/vitest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildClaudeArgs } from "./claude-args.ts";
import { FAKE_CLAUDE_PATH } from "./testing/fake-claude-path.ts";
import { readFakeClaudeRecords } from "./testing/fake-claude-records.ts";
import { WarmClaudeProcess } from "./warm-process.ts";
import {
  type ColdReason,
  WarmProcessPool,
  warmContextDigest,
  warmFingerprint,
} from "./warm-pool.ts";

let root: string;
let counter = 0;
const started: WarmClaudeProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "claude-cli-warm-"));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.end()));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function startFake(extra: Record<string, string> = {}) {
  counter += 1;
  const recordFile = join(root, `record-${counter}.jsonl`);
  const scenarioFile = join(root, `scenario-${counter}`);
  const process = await WarmClaudeProcess.start({
    claudePath: FAKE_CLAUDE_PATH,
    cwd: root,
    args: buildClaudeArgs({}),
    env: {
      FAKE_CLAUDE_RECORD: recordFile,
      FAKE_CLAUDE_STATE_DIR: join(root, `state-${counter}`),
      FAKE_CLAUDE_SCENARIO_FILE: scenarioFile,
      ...extra,
    },
    killGraceMs: 300,
  });
  started.push(process);
  return { process, recordFile, scenarioFile };
}

const turn = (process: WarmClaudeProcess, prompt: string) =>
  process.runTurn({ prompt, timeoutMs: 20_000 });

describe("WarmClaudeProcess with stream-json input", () => {
  it("answers several messages in one process and one session", async () => {
    const { process, recordFile } = await startFake();
    const first = await turn(process, "Message one.");
    const second = await turn(process, "Message two.");
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    expect(second.sessionId).toBe(first.sessionId);
    expect(process.idle).toBe(true);
    const records = await readFakeClaudeRecords(recordFile);
    expect(records.map((r) => [r.input, r.stdin])).toEqual([
      ["stream-json", "Message one."],
      ["stream-json", "Message two."],
    ]);
    expect(new Set(records.map((r) => r.pid)).size).toBe(1);
    expect(records[0]?.argv).toContain("--input-format");
  });

  it("ends the process after a failed turn, so nothing of it reaches a later one", async () => {
    const { process, scenarioFile } = await startFake();
    expect((await turn(process, "fine")).ok).toBe(true);
    await writeFile(scenarioFile, "is_error\n");
    const failed = await turn(process, "fails");
    expect(failed.ok).toBe(false);
    await process.end();
    expect(process.ended).toBe(true);
    const after = await turn(process, "again");
    expect(after.ok).toBe(false);
    if (!after.ok) expect(after.message).toMatch(/run the turn cold/);
  });

  it("ends a hanging turn at its timeout and reports it", async () => {
    const { process } = await startFake({ FAKE_CLAUDE_SCENARIO: "hang" });
    const result = await process.runTurn({ prompt: "x", timeoutMs: 500 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toBe("timeout");
    await process.end();
    expect(process.ended).toBe(true);
  });
});

describe("WarmProcessPool", () => {
  const fingerprint = (at: string, context = "c1") => warmFingerprint({ id: "s1", at }, context);

  it("gives a kept process back only for the very same fingerprint", async () => {
    const ended: Array<[string, ColdReason]> = [];
    const pool = new WarmProcessPool({
      capacity: 2,
      idleMs: 60_000,
      onEnded: (key, _p, reason) => ended.push([key, reason]),
    });
    expect(pool.checkout("p1", fingerprint("m1"))).toEqual({
      process: null,
      reason: "no_warm_process",
    });
    const { process } = await startFake();
    expect((await turn(process, "one")).ok).toBe(true);
    pool.keep("p1", fingerprint("m1"), process);
    const back = pool.checkout("p1", fingerprint("m1"));
    expect(back.process).toBe(process);
    pool.keep("p1", fingerprint("m2"), process);
    // Same session, another point in it: the session moved on without this process.
    expect(pool.checkout("p1", fingerprint("m3")).reason).toBe("session_moved");
    expect(ended).toEqual([["p1", "session_moved"]]);
    await pool.close();
    expect(process.ended).toBe(true);
  });

  it("take: a turn with no session ends whatever was kept; with one it checks out by session point and context", async () => {
    const ended: Array<[string, ColdReason]> = [];
    const pool = new WarmProcessPool({
      capacity: 2,
      idleMs: 60_000,
      onEnded: (key, _p, reason) => ended.push([key, reason]),
    });
    const { process } = await startFake();
    expect((await turn(process, "one")).ok).toBe(true);
    pool.keep("p1", warmFingerprint({ id: "s1", at: "m1" }, "c1"), process);
    expect(pool.take("p1", { id: "s1", at: "m1" }, "c1").process).toBe(process);
    pool.keep("p1", warmFingerprint({ id: "s1", at: "m1" }, "c1"), process);
    expect(pool.take("p1", null, "c1")).toEqual({ process: null, reason: "new_session" });
    expect(ended).toEqual([["p1", "new_session"]]);
    expect(pool.take("p1", { id: "s1", at: "m1" }, "c1").reason).toBe("no_warm_process");
    await pool.close();
  });

  it("ends the kept process when the context changed, and says so", async () => {
    const pool = new WarmProcessPool({ capacity: 1, idleMs: 60_000 });
    const { process } = await startFake();
    expect((await turn(process, "one")).ok).toBe(true);
    pool.keep("p1", fingerprint("m1", "c1"), process);
    expect(pool.checkout("p1", fingerprint("m1", "c2")).reason).toBe("context_changed");
    await pool.close();
    expect(process.ended).toBe(true);
  });

  it("keeps at most its cap, ending the least recently used first", async () => {
    const pool = new WarmProcessPool({ capacity: 2, idleMs: 60_000 });
    const processes = (await Promise.all([startFake(), startFake(), startFake()])).map(
      (s) => s.process,
    );
    for (const p of processes) expect((await turn(p, "hi")).ok).toBe(true);
    pool.keep("a", fingerprint("m"), processes[0] as WarmClaudeProcess);
    pool.keep("b", fingerprint("m"), processes[1] as WarmClaudeProcess);
    // "a" used again: "b" is now the least recently used.
    pool.keep(
      "a",
      fingerprint("m"),
      pool.checkout("a", fingerprint("m")).process as WarmClaudeProcess,
    );
    pool.keep("c", fingerprint("m"), processes[2] as WarmClaudeProcess);
    expect(pool.size).toBe(2);
    expect(pool.checkout("b", fingerprint("m")).reason).toBe("evicted");
    expect(pool.checkout("a", fingerprint("m")).process).toBe(processes[0]);
    await pool.close();
  });

  it("ends a process idle past its timeout", async () => {
    const pool = new WarmProcessPool({ capacity: 2, idleMs: 200 });
    const { process } = await startFake();
    expect((await turn(process, "hi")).ok).toBe(true);
    pool.keep("a", fingerprint("m"), process);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(pool.size).toBe(0);
    expect(pool.checkout("a", fingerprint("m")).reason).toBe("idle_timeout");
    await pool.close();
    expect(process.ended).toBe(true);
  });

  it("keeps nothing with a cap of 0, and refuses nonsense bounds", async () => {
    const pool = new WarmProcessPool({ capacity: 0, idleMs: 1000 });
    expect(pool.checkout("a", "x").reason).toBe("warm_disabled");
    const { process } = await startFake();
    expect((await turn(process, "hi")).ok).toBe(true);
    pool.keep("a", "x", process);
    await pool.close();
    expect(process.ended).toBe(true);
    expect(() => new WarmProcessPool({ capacity: -1, idleMs: 1 })).toThrow(/cap/);
    expect(() => new WarmProcessPool({ capacity: 1, idleMs: 0 })).toThrow(/idle/);
  });

  it("prunes kept processes that can never be used again", async () => {
    const pool = new WarmProcessPool({ capacity: 3, idleMs: 60_000 });
    const { process } = await startFake();
    expect((await turn(process, "hi")).ok).toBe(true);
    pool.keep("a", fingerprint("m1"), process);
    expect(pool.prune(() => true, "session_moved")).toBe(0);
    expect(pool.prune((_key, fp) => fp === fingerprint("m2"), "session_moved")).toBe(1);
    expect(pool.checkout("a", fingerprint("m1")).reason).toBe("session_moved");
    await pool.close();
    expect(process.ended).toBe(true);
  });
});

describe("warmContextDigest", () => {
  const input = fc.record({
    args: fc.array(fc.string(), { maxLength: 4 }),
    env: fc.dictionary(fc.string({ minLength: 1 }), fc.string(), { maxKeys: 4 }),
    files: fc.uniqueArray(fc.record({ path: fc.string(), content: fc.string() }), {
      maxLength: 3,
      selector: (f) => f.path,
    }),
  });

  it("is the same for the same input in any order of env and files", () => {
    fc.assert(
      fc.property(input, (value) => {
        const shuffled = {
          args: value.args,
          env: Object.fromEntries(Object.entries(value.env).reverse()),
          files: [...value.files].reverse(),
        };
        expect(warmContextDigest(shuffled)).toBe(warmContextDigest(value));
      }),
    );
  });

  it("differs when any byte of an argument, a variable or a file differs", () => {
    fc.assert(
      fc.property(input, fc.string({ minLength: 1 }), (value, extra) => {
        const base = warmContextDigest(value);
        expect(warmContextDigest({ ...value, args: [...value.args, extra] })).not.toBe(base);
        expect(
          warmContextDigest({
            ...value,
            files: [...value.files, { path: `${extra}\0`, content: "" }],
          }),
        ).not.toBe(base);
        const [first] = value.files;
        if (first !== undefined) {
          const changed = [
            { ...first, content: `${first.content}${extra}` },
            ...value.files.slice(1),
          ];
          expect(warmContextDigest({ ...value, files: changed })).not.toBe(base);
        }
      }),
    );
  });

  it("does not let two fields run together", () => {
    expect(warmContextDigest({ args: ["ab", "c"], env: {}, files: [] })).not.toBe(
      warmContextDigest({ args: ["a", "bc"], env: {}, files: [] }),
    );
  });
});

describe("WarmClaudeProcess start failures", () => {
  it("fails the first turn as a cold turn would when the binary or the directory is missing", async () => {
    const missing = await WarmClaudeProcess.start({
      claudePath: join(root, "no-such-claude"),
      cwd: root,
      args: buildClaudeArgs({}),
      env: {},
    });
    const result = await missing.runTurn({ prompt: "x", timeoutMs: 5_000 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toBe("binary_missing");
    const noDir = await WarmClaudeProcess.start({
      claudePath: FAKE_CLAUDE_PATH,
      cwd: join(root, "no-such-dir"),
      args: buildClaudeArgs({}),
      env: {},
    });
    const second = await noDir.runTurn({ prompt: "x", timeoutMs: 5_000 });
    expect(second.ok).toBe(false);
    if (!second.ok) expect(second.reason).toBe("spawn_failed");
    await Promise.all([missing.end(), noDir.end()]);
  });
});

describe("WarmProcessPool: one process per key", () => {
  it("lets a new process for a key start only after the one being ended has exited", async () => {
    const pool = new WarmProcessPool({ capacity: 2, idleMs: 60_000 });
    // A process that ignores the end of its input and SIGTERM: only SIGKILL after the grace
    // ends it, so "ended" and "exited" are far apart.
    const { process } = await startFake({
      FAKE_CLAUDE_SCENARIO: "hang",
      FAKE_CLAUDE_IGNORE_SIGTERM: "1",
    });
    const hanging = process.runTurn({ prompt: "x", timeoutMs: 60_000 });
    pool.retire("a", process, "previous_turn_failed");
    expect(process.ended).toBe(false);
    await pool.settled("a");
    expect(process.ended).toBe(true);
    expect((await hanging).ok).toBe(false);
    expect(pool.checkout("a", "x").reason).toBe("previous_turn_failed");
    await pool.settled("b");
    await pool.close();
  });
});

describe("WarmClaudeProcess and the orphan watchdog", () => {
  it("tracks its marker before the spawn and untracks it once the process has exited", async () => {
    const calls: string[] = [];
    const watchdog = {
      track: (value: string) => calls.push(`+${value}`),
      untrack: (value: string) => calls.push(`-${value}`),
    };
    counter += 1;
    const process = await WarmClaudeProcess.start({
      claudePath: FAKE_CLAUDE_PATH,
      cwd: root,
      args: buildClaudeArgs({}),
      env: { FAKE_CLAUDE_STATE_DIR: join(root, `state-${counter}`) },
      killGraceMs: 300,
      tag: "turn-1",
      watchdog,
    });
    expect(calls).toEqual(["+turn-1"]);
    expect((await turn(process, "hi")).ok).toBe(true);
    expect(calls).toEqual(["+turn-1"]);
    await process.end();
    await process.whenEnded();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(["+turn-1", "-turn-1"]);
  });
});
