// The runner against real child processes: a fake implementation that answers right, wrong,
// crashes, dies by a signal, breaks the protocol or hangs (with a grandchild), driven both
// per case and in a session (spec/runner-protocol.md).

import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FAKE_IMPLEMENTATION, makeShoutPackage } from "../test-support/shout-package.ts";
import { humanLines } from "./report.ts";
import { runConformance, type CaseResult, type ConformanceOptions } from "./runner.ts";

const root = makeShoutPackage();
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

async function run(
  mode: string,
  options: Partial<ConformanceOptions> = {},
): Promise<Map<string, CaseResult>> {
  const report = await runConformance({
    root,
    command: process.execPath,
    args: [FAKE_IMPLEMENTATION, mode, "{output}"],
    ...options,
  });
  return new Map(report.results.map((result) => [`${result.suite}/${result.id}`, result]));
}

describe.each([
  ["per case", true],
  ["in a session", false],
])("runConformance, %s", (_how, perCase) => {
  it("passes a correct implementation on every case and output", async () => {
    const report = await runConformance({
      root,
      perCase,
      command: process.execPath,
      args: [FAKE_IMPLEMENTATION, "correct", "{output}"],
    });
    expect(report.results.map((r) => [`${r.suite}/${r.id}`, r.status])).toEqual([
      ["shout/bad-word", "pass"],
      ["shout/hello", "pass"],
      ["shout/white-space", "pass"],
      ["shout-pair/two-lines", "pass"],
    ]);
    expect(report.ok).toBe(true);
    const pair = report.results[3];
    expect(pair?.outputs.map((output) => output.arg)).toEqual(["first", "second"]);
    expect(pair?.wantSha256).toBe(pair?.gotSha256);
  });

  it("reports wrong bytes as fail, with want/got sha256 and a diff that shows the white space", async () => {
    const results = await run("wrong-bytes", { suites: ["shout"], perCase });
    const hello = results.get("shout/hello");
    expect(hello?.status).toBe("fail");
    expect(hello?.detail).toMatch(/^wrong bytes/u);
    expect(hello?.wantSha256).not.toBe(hello?.gotSha256);
    expect(results.get("shout/bad-word")?.status).toBe("pass");
    const report = humanLines(results.get("shout/white-space") as CaseResult).join("\n");
    expect(report).toContain("-A·B→C<U+00A0>D⏎");
    expect(report).toContain("+A·B→C<U+00A0>D·⏎");
  });

  it("reports a wrong error code or path as fail", async () => {
    const results = await run("wrong-error", { suites: ["shout"], perCase });
    expect(results.get("shout/bad-word")?.status).toBe("fail");
    expect(results.get("shout/bad-word")?.detail).toBe(
      'wrong error: want bad_input at "line[0]", got bad_input at "line[1]"',
    );
  });

  it.each([
    ["crash", /^crashed: exit code 1/u],
    ["die", /^crashed: exit code 3/u],
    ["signal", /^crashed: killed by SIGKILL/u],
    ["protocol-stdout", /^wrong protocol: exit code 2 but 14 bytes on stdout/u],
    ["protocol-garbage", /^wrong protocol: stderr is not JSON/u],
  ])("reports %s as error, not as fail", async (mode, detail) => {
    const results = await run(mode, { include: ["bad-word"], perCase });
    const result = results.get("shout/bad-word");
    expect(result?.status).toBe("error");
    expect(result?.detail).toMatch(detail);
    expect(result?.ok).toBe(false);
  });

  it("reports a command that cannot start as error", async () => {
    const report = await runConformance({
      root,
      perCase,
      command: path.join(tmpdir(), "no-such-implementation"),
      suites: ["shout"],
      include: ["hello"],
    });
    expect(report.results[0]?.status).toBe("error");
    expect(report.results[0]?.detail).toMatch(/^could not start the command/u);
  });

  it("times a hanging implementation out and kills its whole process tree", async () => {
    const pidFile = path.join(root, "grandchild.pid");
    process.env["FAKE_PID_FILE"] = pidFile;
    try {
      const results = await run("hang", {
        suites: ["shout"],
        include: ["hello"],
        timeoutMs: 1500,
        perCase,
      });
      expect(results.get("shout/hello")?.status).toBe("timeout");
    } finally {
      delete process.env["FAKE_PID_FILE"];
    }
    expect(existsSync(pidFile)).toBe(true);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    await expect.poll(() => isAlive(grandchild), { timeout: 10_000 }).toBe(false);
  });
});

describe("runConformance", () => {
  it("selects cases with include and exclude globs, by case id or by suite/case-id", async () => {
    const ids = async (options: Partial<ConformanceOptions>): Promise<string[]> => [
      ...(await run("correct", options)).keys(),
    ];
    expect(await ids({ include: ["*-*"] })).toEqual([
      "shout/bad-word",
      "shout/white-space",
      "shout-pair/two-lines",
    ]);
    expect(await ids({ exclude: ["shout/*"] })).toEqual(["shout-pair/two-lines"]);
    expect(await ids({ include: ["shout/*"], exclude: ["hello"] })).toEqual([
      "shout/bad-word",
      "shout/white-space",
    ]);
  });

  it("accepts known failures, and fails a known failure that passes or names no case", async () => {
    const failing = new Set(["shout/hello", "shout/white-space"]);
    const accepted = await runConformance({
      root,
      command: process.execPath,
      args: [FAKE_IMPLEMENTATION, "wrong-bytes"],
      suites: ["shout"],
      knownFailures: failing,
    });
    expect(accepted.ok).toBe(true);
    expect(accepted.counts.knownFailures).toBe(2);

    const stale = new Set([...failing, "shout/bad-word"]);
    const unexpected = await runConformance({
      root,
      command: process.execPath,
      args: [FAKE_IMPLEMENTATION, "wrong-bytes"],
      suites: ["shout"],
      knownFailures: stale,
    });
    const badWord = unexpected.results.find((result) => result.id === "bad-word");
    expect(unexpected.ok).toBe(false);
    expect(badWord?.status).toBe("fail");
    expect(badWord?.unexpectedPass).toBe(true);
    expect(badWord?.detail).toMatch(/^unexpectedly passed/u);

    const missing = await runConformance({
      root,
      command: process.execPath,
      args: [FAKE_IMPLEMENTATION, "correct"],
      suites: ["shout"],
      knownFailures: new Set(["shout/no-such-case"]),
    });
    expect(missing.ok).toBe(false);
    expect(missing.staleKnownFailures).toEqual(["shout/no-such-case"]);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch {
    return false;
  }
}

function isZombie(pid: number): boolean {
  try {
    return /^State:\s+Z/mu.test(readFileSync(`/proc/${String(pid)}/status`, "utf8"));
  } catch {
    return false;
  }
}
