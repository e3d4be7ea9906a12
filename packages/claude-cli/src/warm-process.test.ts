import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildClaudeArgs } from "./claude-args.ts";
import { ClaudeCliError } from "./errors.ts";
import { isUnknownSessionFailure } from "./unknown-session.ts";
import { perTurnCostUsd } from "./cost.ts";
import type { ClaudeStreamEvent } from "./stream-json.ts";
import { FAKE_CLAUDE_PATH } from "./testing/fake-claude-path.ts";
import { readFakeClaudeRecords } from "./testing/fake-claude-records.ts";
import { runOneTurn, type OneTurnOptions } from "./testing/one-turn.ts";
import type { ClaudeTurnResult } from "./turn-result.ts";
import { WarmClaudeProcess } from "./warm-process.ts";

// The one way this package runs the CLI, one turn per process as the apps' cold turns run
// (`runOneTurn`: start, one turn, end), against the fake `claude`. Several turns in one
// process, and the pool, are in warm-pool.test.ts; the real CLI in *.wire.test.ts.

let root: string;
let caseCounter = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "claude-cli-turn-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh record file and state dir per case, so cases never see each other's sessions. */
function fakeEnv(extra: Record<string, string> = {}): {
  env: Record<string, string>;
  recordFile: string;
} {
  caseCounter += 1;
  const recordFile = join(root, `record-${caseCounter}.jsonl`);
  return {
    recordFile,
    env: {
      FAKE_CLAUDE_RECORD: recordFile,
      FAKE_CLAUDE_STATE_DIR: join(root, `state-${caseCounter}`),
      ...extra,
    },
  };
}

function turn(overrides: Partial<OneTurnOptions> = {}): Promise<ClaudeTurnResult> {
  return runOneTurn({
    claudePath: FAKE_CLAUDE_PATH,
    cwd: root,
    prompt: "Hello agent",
    env: fakeEnv().env,
    timeoutMs: 15_000,
    killGraceMs: 300,
    ...overrides,
  });
}

/** A kept process of the fake CLI in the test's workspace, for tests that run several turns. */
function startFake(env: Record<string, string>): Promise<WarmClaudeProcess> {
  return WarmClaudeProcess.start({
    claudePath: FAKE_CLAUDE_PATH,
    cwd: root,
    args: buildClaudeArgs({}),
    env,
    killGraceMs: 300,
  });
}

function expectFailure(result: ClaudeTurnResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

function expectSuccess(result: ClaudeTurnResult) {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return result;
}

/** Linux: a zombie (state Z) or a vanished /proc entry both mean the process is gone. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting until ${what}`);
}

describe("a Claude Code process: successful turns", () => {
  it("sends the prompt as a stream-json message, passes the exact argv and env, and reads session, text and cost", async () => {
    const { env, recordFile } = fakeEnv({
      FAKE_CLAUDE_RESULT: "All done ✓",
      TALKIDE_AGENT_ID: "a1",
    });
    const seen: ClaudeStreamEvent[] = [];
    const result = expectSuccess(
      await turn({
        env: { ...env, LEFT_OUT: undefined },
        prompt: "Wake up: message 42\nsecond line",
        appendSystemPrompt: "You are reachable through the ticlawk CLI.",
        extraArgs: ["--exclude-dynamic-system-prompt-sections"],
        onEvent: (event) => seen.push(event),
      }),
    );
    expect(result.resultText).toBe("All done ✓");
    expect(result.totalCostUsd).toBe(0.0125);
    expect(result.events.map((e) => `${e.type}/${e.subtype ?? ""}`)).toEqual([
      "system/init",
      "assistant/",
      "result/success",
    ]);
    expect(seen).toEqual(result.events);
    expect(result.sessionId).toBe(result.events[0]?.session_id);

    const [record] = await readFakeClaudeRecords(recordFile);
    expect(record?.stdin).toBe("Wake up: message 42\nsecond line");
    expect(record?.input).toBe("stream-json");
    expect(record?.cwd).toBe(root);
    expect(record?.argv).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--append-system-prompt",
      "You are reachable through the ticlawk CLI.",
      "--exclude-dynamic-system-prompt-sections",
      "--input-format",
      "stream-json",
    ]);
    // Nothing inherited from the test process, nothing added: exactly what was passed.
    expect(record?.env).toEqual(env);
  });

  it("resumes a session: same id, growing cumulative cost, per-turn cost as the difference", async () => {
    const { env, recordFile } = fakeEnv({ FAKE_CLAUDE_TURN_COST_USD: "0.02" });
    const first = expectSuccess(await turn({ env }));
    const second = expectSuccess(await turn({ env, resumeSessionId: first.sessionId }));
    const third = expectSuccess(await turn({ env, resumeSessionId: second.sessionId }));
    expect(second.sessionId).toBe(first.sessionId);
    expect(third.sessionId).toBe(first.sessionId);
    expect([first.totalCostUsd, second.totalCostUsd, third.totalCostUsd]).toEqual([
      0.02, 0.04, 0.06,
    ]);
    expect(perTurnCostUsd(null, first.totalCostUsd)).toBe(0.02);
    expect(perTurnCostUsd(second.totalCostUsd, third.totalCostUsd)).toBe(0.02);
    const records = await readFakeClaudeRecords(recordFile);
    expect(records[1]?.argv.slice(4)).toEqual([
      "--resume",
      first.sessionId,
      "--input-format",
      "stream-json",
    ]);
  });

  it("reassembles events whose bytes arrive in 3-byte pieces, splitting lines and UTF-8 characters", async () => {
    const { env } = fakeEnv({
      FAKE_CLAUDE_WRITE_CHUNK_BYTES: "3",
      FAKE_CLAUDE_RESULT: "héllo ✓ 🎉",
    });
    const result = expectSuccess(await turn({ env }));
    expect(result.resultText).toBe("héllo ✓ 🎉");
    expect(result.events).toHaveLength(3);
  });

  it("keeps a finished turn when the CLI lingers after its result, and ends the lingering process", async () => {
    // The fake sleeps after its result instead of reading its input again: ending the process
    // (input closed, then SIGTERM after the grace) is what stops it.
    const pidFile = join(root, "linger.pid");
    const { env } = fakeEnv({
      FAKE_CLAUDE_LINGER_MS: "60000",
      FAKE_CLAUDE_RUN: `echo $PPID > ${pidFile}`,
    });
    const result = expectSuccess(await turn({ env, killGraceMs: 200 }));
    expect(result.resultText).toBe("Done.");
    const pid = Number((await readFile(pidFile, "utf8")).trim());
    await waitUntil(() => !isAlive(pid), "the lingering CLI is gone");
  });

  it("names the child's pid (its process-group id) once it runs", async () => {
    const { env, recordFile } = fakeEnv();
    const cli = await startFake(env);
    try {
      expectSuccess(await cli.runTurn({ prompt: "Hello agent", timeoutMs: 15_000 }));
    } finally {
      await cli.end();
    }
    const [record] = await readFakeClaudeRecords(recordFile);
    expect(cli.pid).toBe(record?.pid);
  });

  it("the slow scenario answers after its delay", async () => {
    const { env } = fakeEnv({ FAKE_CLAUDE_SCENARIO: "slow", FAKE_CLAUDE_DELAY_MS: "300" });
    const seen: string[] = [];
    const result = expectSuccess(await turn({ env, onEvent: (e) => seen.push(e.type) }));
    expect(result.resultText).toBe("Done.");
    expect(seen).toEqual(["system", "assistant", "result"]);
  });

  it("runs FAKE_CLAUDE_RUN in the turn's cwd with the turn's env before answering", async () => {
    const { env, recordFile } = fakeEnv({ FAKE_CLAUDE_RUN: 'printf "%s" "$TALKIDE_X" > ran.txt' });
    expectSuccess(await turn({ env: { ...env, TALKIDE_X: "from-env" } }));
    expect(await readFile(join(root, "ran.txt"), "utf8")).toBe("from-env");
    const [record] = await readFakeClaudeRecords(recordFile);
    expect(record?.run?.exitCode).toBe(0);
  });
});

describe("a Claude Code process: failures are results with a distinct reason", () => {
  it("is_error: true fails the turn although the subtype says success", async () => {
    const failed = expectFailure(
      await turn({ env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "is_error" }).env }),
    );
    expect(failed.reason).toBe("is_error");
    expect(failed.message).toBe(
      "Claude Code reported an error: API Error: 500 Internal server error (fake)",
    );
    expect(failed.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // Decided by the result event, while the process was still running.
    expect(failed.exitCode).toBeNull();
  });

  it("unknown session on --resume: is_error with the CLI's own words, no session announced", async () => {
    const failed = expectFailure(
      await turn({ env: fakeEnv().env, resumeSessionId: "5b0e1f2a-0000-4000-8000-00000000dead" }),
    );
    expect(failed.reason).toBe("is_error");
    expect(failed.message).toBe(
      "Claude Code reported an error (error_during_execution): No conversation found with session ID: 5b0e1f2a-0000-4000-8000-00000000dead",
    );
    expect(failed.sessionId).toBeNull();
    expect(isUnknownSessionFailure(failed)).toBe(true);
  });

  it("the unknown_session scenario fails a resume even of a known session, not a fresh turn", async () => {
    const { env } = fakeEnv();
    const first = expectSuccess(await turn({ env }));
    const failing = { ...env, FAKE_CLAUDE_SCENARIO: "unknown_session" };
    const resumed = await turn({ env: failing, resumeSessionId: first.sessionId });
    expect(isUnknownSessionFailure(resumed)).toBe(true);
    expect((await turn({ env: failing })).ok).toBe(true);
  });

  it("crashed: non-zero exit without a result, with the stderr tail", async () => {
    const failed = expectFailure(
      await turn({
        env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "crash", FAKE_CLAUDE_EXIT_CODE: "3" }).env,
      }),
    );
    expect(failed.reason).toBe("crashed");
    expect(failed.exitCode).toBe(3);
    expect(failed.message).toContain("exited with code 3");
    expect(failed.stderrTail).toBe("fake claude: simulated crash\n");
    expect(failed.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("crashed: killed by a signal", async () => {
    const failed = expectFailure(
      await turn({
        env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "crash", FAKE_CLAUDE_CRASH_SIGNAL: "SIGKILL" }).env,
      }),
    );
    expect(failed.reason).toBe("crashed");
    expect(failed.exitCode).toBeNull();
    expect(failed.message).toContain("was killed by SIGKILL");
  });

  it("timeout: no result within timeoutMs ends the turn", async () => {
    const env = fakeEnv({ FAKE_CLAUDE_SCENARIO: "hang" }).env;
    const failed = expectFailure(await turn({ env, timeoutMs: 400 }));
    expect(failed.reason).toBe("timeout");
    expect(failed.message).toContain("gave no result within 400 ms");
    expect(failed.totalCostUsd).toBeNull();
  });

  it("termination reaches the whole process group, grandchildren included", async () => {
    // The grandchild exists before the init event, so terminating on init is deterministic;
    // timeouts and aborts share this termination.
    const pidFile = join(root, "grandchild.pid");
    const env = fakeEnv({
      FAKE_CLAUDE_SCENARIO: "hang",
      FAKE_CLAUDE_RUN: `sleep 300 >/dev/null 2>&1 & echo $! > ${pidFile}`,
    }).env;
    const controller = new AbortController();
    const failed = expectFailure(
      await turn({
        env,
        signal: controller.signal,
        onEvent: () => {
          controller.abort();
        },
      }),
    );
    expect(failed.reason).toBe("aborted");
    const grandchild = Number((await readFile(pidFile, "utf8")).trim());
    await waitUntil(() => !isAlive(grandchild), "the grandchild is gone");
  });

  it("a CLI that ignores SIGTERM is killed with SIGKILL after the grace period", async () => {
    // Terminated once init arrived (the fake ignores SIGTERM from before init on); a timeout
    // takes the same termination path, but could fire while Node is still starting up.
    const controller = new AbortController();
    const env = fakeEnv({ FAKE_CLAUDE_SCENARIO: "hang", FAKE_CLAUDE_IGNORE_SIGTERM: "1" }).env;
    const failed = expectFailure(
      await turn({
        env,
        killGraceMs: 200,
        signal: controller.signal,
        onEvent: () => {
          controller.abort();
        },
      }),
    );
    expect(failed.reason).toBe("aborted");
    expect(failed.message).toBe(
      "The turn was aborted; it ignored SIGTERM and was killed (SIGKILL) after 200 ms.",
    );
  });

  it("aborted: mid-turn, once the init event arrived", async () => {
    const controller = new AbortController();
    const failed = expectFailure(
      await turn({
        env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "hang" }).env,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "system") controller.abort();
        },
      }),
    );
    expect(failed.reason).toBe("aborted");
    expect(failed.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("aborted: an already aborted signal sends nothing and ends the process", async () => {
    const { env, recordFile } = fakeEnv();
    const failed = expectFailure(await turn({ env, signal: AbortSignal.abort() }));
    expect(failed.reason).toBe("aborted");
    expect(await readFakeClaudeRecords(recordFile)).toEqual([]);
  });

  it("binary_missing: no file at the path (a relative one is the caller's, not the child's)", async () => {
    const failed = expectFailure(await turn({ claudePath: join(root, "no-such-claude") }));
    expect(failed.reason).toBe("binary_missing");
    expect(failed.message).toContain("was not found");
    const relative = expectFailure(await turn({ claudePath: "./no-such-dir/claude" }));
    expect(relative.message).toContain(join(process.cwd(), "no-such-dir", "claude"));
  });

  it("binary_missing: a file without the executable bit", async () => {
    const path = join(root, "not-executable-claude");
    await writeFile(path, "#!/bin/sh\nexit 0\n");
    await chmod(path, 0o644);
    const failed = expectFailure(await turn({ claudePath: path }));
    expect(failed.reason).toBe("binary_missing");
    expect(failed.message).toContain("is not an executable file");
  });

  it("binary_missing: a bare command name that is not on the child's PATH", async () => {
    const failed = expectFailure(
      await turn({ claudePath: "claude-does-not-exist", env: { PATH: root } }),
    );
    expect(failed.reason).toBe("binary_missing");
    expect(failed.message).toContain("ENOENT");
  });

  it("spawn_failed: the working directory does not exist", async () => {
    const failed = expectFailure(await turn({ cwd: join(root, "missing-workspace") }));
    expect(failed.reason).toBe("spawn_failed");
    expect(failed.message).toContain("does not exist or is not a directory");
  });

  it("protocol: a line that is not JSON", async () => {
    const failed = expectFailure(
      await turn({ env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "garbage" }).env }),
    );
    expect(failed.reason).toBe("protocol");
    expect(failed.message).toContain('"this line is not JSON"');
  });

  it("protocol: a clean exit without a result event", async () => {
    const failed = expectFailure(
      await turn({ env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "no_result" }).env }),
    );
    expect(failed.reason).toBe("protocol");
    expect(failed.exitCode).toBe(0);
    expect(failed.message).toContain("without a result event");
  });
});

describe("a Claude Code process: caller mistakes throw before anything runs", () => {
  it.each([
    [{ prompt: "  \n" }, "prompt"],
    [{ timeoutMs: 0 }, "timeoutMs"],
    [{ timeoutMs: 1.5 }, "timeoutMs"],
    [{ timeoutMs: 2 ** 31 }, "timeoutMs"],
    [{ killGraceMs: -1 }, "killGraceMs"],
    [{ claudePath: "" }, "claudePath"],
    [{ resumeSessionId: "--evil" }, "resumeSessionId"],
  ] as const)("%j is rejected at %s", async (overrides, path) => {
    const { env, recordFile } = fakeEnv();
    const error = await turn({ env, ...overrides }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaudeCliError);
    expect((error as ClaudeCliError).code).toBe("invalid_option");
    expect((error as ClaudeCliError).path).toBe(path);
    expect(await readFakeClaudeRecords(recordFile)).toEqual([]);
  });

  it("a turn with invalid options sends nothing and leaves the process for the next turn", async () => {
    const { env, recordFile } = fakeEnv();
    const cli = await startFake(env);
    try {
      const error = await cli.runTurn({ prompt: " ", timeoutMs: 15_000 }).catch((e: unknown) => e);
      expect((error as ClaudeCliError).path).toBe("prompt");
      expect(cli.idle).toBe(true);
      expectSuccess(await cli.runTurn({ prompt: "Hello agent", timeoutMs: 15_000 }));
    } finally {
      await cli.end();
    }
    expect((await readFakeClaudeRecords(recordFile)).map((r) => r.stdin)).toEqual(["Hello agent"]);
  });

  it("an onEvent listener that throws changes nothing: the turn still reports its result", async () => {
    const result = expectSuccess(
      await turn({
        onEvent: () => {
          throw new Error("consumer failed");
        },
      }),
    );
    expect(result.resultText).toBe("Done.");
  });
});
