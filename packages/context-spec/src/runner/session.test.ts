// The session mode of the runner protocol against real child processes: one process per
// argument list, the per-case fallback for an implementation that does not answer the
// handshake, a fresh process after a case that killed or hung one, and (a property) the same
// verdicts as per case for the same implementation on the same cases.

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { afterAll, describe, expect, it } from "vitest";
import {
  FAKE_IMPLEMENTATION,
  makeShoutPackage,
  type ShoutCase,
  writeShoutSuite,
} from "../test-support/shout-package.ts";
import { runConformance, type ConformanceOptions, type ConformanceReport } from "./runner.ts";

const root = makeShoutPackage();
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function conformance(
  mode: string,
  options: Partial<ConformanceOptions>,
): Promise<ConformanceReport> {
  return runConformance({
    root,
    command: process.execPath,
    args: [FAKE_IMPLEMENTATION, mode, "{output}"],
    jobs: 1,
    ...options,
  });
}

/** How many implementation processes `work` started (the fake logs each pid it runs as). */
async function startedProcesses(work: () => Promise<unknown>): Promise<number> {
  const log = path.join(root, "pids.log");
  writeFileSync(log, "");
  process.env["FAKE_PID_LOG"] = log;
  try {
    await work();
  } finally {
    delete process.env["FAKE_PID_LOG"];
  }
  return new Set(readFileSync(log, "utf8").split("\n").filter(Boolean)).size;
}

const statuses = (report: ConformanceReport): string[] =>
  report.results.map((result) => `${result.id}: ${result.status}`);

describe("the session mode", () => {
  it("starts the implementation once per argument list, not once per case", async () => {
    const suites = ["shout", "shout-pair"];
    let report: ConformanceReport | undefined;
    // shout has three cases and one output; shout-pair one case with two outputs (two lists).
    expect(
      await startedProcesses(async () => (report = await conformance("correct", { suites }))),
    ).toBe(3);
    expect(report?.ok).toBe(true);
    expect(await startedProcesses(() => conformance("correct", { suites, perCase: true }))).toBe(5);
  });

  it("drives an implementation that does not answer the handshake per case, as before", async () => {
    let report: ConformanceReport | undefined;
    const started = await startedProcesses(
      async () =>
        (report = await conformance("per-case-only", { suites: ["shout"], timeoutMs: 5_000 })),
    );
    expect(statuses(report as ConformanceReport)).toEqual([
      "bad-word: pass",
      "hello: pass",
      "white-space: pass",
    ]);
    // The refused handshake, then one process per case.
    expect(started).toBe(4);
  });

  it("reports a death or a hang for its own case and goes on with a fresh process", async () => {
    writeShoutSuite(root, "shout-trouble", [
      { id: "a", input: "one\n", expected: "ONE\n" },
      { id: "b", input: "two #die\n", expected: "TWO #DIE\n" },
      { id: "c", input: "three #hang\n", expected: "THREE #HANG\n" },
      { id: "d", input: "four #signal\n", expected: "FOUR #SIGNAL\n" },
      { id: "e", input: "five #crash\n", expected: "FIVE #CRASH\n" },
      { id: "f", input: "six\n", expected: "SIX\n" },
    ]);
    let report: ConformanceReport | undefined;
    const started = await startedProcesses(
      async () =>
        (report = await conformance("correct", { suites: ["shout-trouble"], timeoutMs: 3_000 })),
    );
    expect(statuses(report as ConformanceReport)).toEqual([
      "a: pass",
      "b: error",
      "c: timeout",
      "d: error",
      "e: error",
      "f: pass",
    ]);
    expect(report?.results.map((result) => result.detail).slice(1, 5)).toEqual([
      "crashed: exit code 3",
      "timed out: no answer within 3000 ms; its process group was killed",
      "crashed: killed by SIGKILL",
      "crashed: exit code 1",
    ]);
    // A case that killed (b, d) or hung (c) its process costs a new one; a caught crash (e) not.
    expect(started).toBe(4);
  });
});

// Inputs over the characters that matter for byte-exact answers, sometimes with a word that
// makes the fake misbehave for that case; expectations right, wrong, or an error.
const MISBEHAVIOUR = fc.oneof(
  { weight: 12, arbitrary: fc.constant("") },
  { weight: 2, arbitrary: fc.constantFrom(" #crash", " #die", " #signal", " #garbage", " #noise") },
  { weight: 1, arbitrary: fc.constant(" #hang") },
);
const TEXT = fc.string({
  unit: fc.constantFrom("a", "b", "d", "x", " ", "\t", "\n", "\r", "\u00a0", "é", "\u0000"),
  maxLength: 12,
});
const EXPECTATION = fc.constantFrom("right", "wrong-bytes", "error", "wrong-error");
const CASES = fc.array(fc.tuple(TEXT, MISBEHAVIOUR, EXPECTATION), { minLength: 1, maxLength: 5 });

function shoutCases(generated: readonly (readonly [string, string, string])[]): ShoutCase[] {
  return generated.map(([text, misbehaviour, expectation], index) => {
    const input = `${text}${misbehaviour}`;
    const id = `case-${String(index).padStart(2, "0")}`;
    switch (expectation) {
      case "right":
        return { id, input, expected: input.toUpperCase() };
      case "wrong-bytes":
        return { id, input, expected: `${input.toUpperCase()}\n` };
      case "error":
        return { id, input, expected: { code: "bad_input", path: "line[0]" } };
      default:
        return { id, input, expected: { code: "bad_input", path: "line[9]" } };
    }
  });
}

/** Everything a verdict says, without stderr (a caught crash's stack differs from an uncaught one's). */
function verdicts(report: ConformanceReport): unknown[] {
  return report.results.map((result) => ({
    id: result.id,
    status: result.status,
    ok: result.ok,
    detail: result.detail,
    wantSha256: result.wantSha256,
    gotSha256: result.gotSha256,
    outputs: result.outputs.map((output) => ({
      status: output.status,
      detail: output.detail,
      gotSha256: output.gotSha256,
      got: output.got,
      exitCode: output.exitCode,
      signal: output.signal,
    })),
  }));
}

describe("session and per-case runs", () => {
  test.prop([CASES, fc.constantFrom("correct", "wrong-bytes", "wrong-error")], { numRuns: 6 })(
    "give the same verdicts for the same implementation on the same cases",
    async (generated, mode) => {
      writeShoutSuite(root, "shout-generated", shoutCases(generated));
      const options = { suites: ["shout-generated"], timeoutMs: 4_000, jobs: 2 };
      const perCase = await conformance(mode, { ...options, perCase: true });
      const session = await conformance(mode, options);
      expect(verdicts(session)).toEqual(verdicts(perCase));
    },
  );
});
