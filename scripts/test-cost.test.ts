import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// scripts/test-cost.sh on one small test file: a real vitest run, measured by the shell.
const SCRIPT = fileURLToPath(new URL("./test-cost.sh", import.meta.url));
const SMALL = "packages/text/src/escape.test.ts";

const cwd = mkdtempSync(join(tmpdir(), "talkide-test-cost-"));
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

describe("scripts/test-cost.sh", () => {
  it("runs the file alone and prints its CPU and wall seconds, the log directory taken from where it runs", () => {
    const result = spawnSync("sh", [SCRIPT, "logs", SMALL], {
      cwd,
      encoding: "utf8",
      env: process.env,
    });
    expect(result.status).toBe(0);
    const [header, line, ...rest] = result.stdout.split("\n");
    expect(header).toBe("cpu_s\twall_s\tfile\tresult");
    expect(rest).toEqual([""]);
    const [cpu, wall, file, outcome] = (line ?? "").split("\t");
    expect([file, outcome]).toEqual([SMALL, "passed"]);
    // The CPU of the vitest run the shell waited for: never zero (a `times` in a subshell is).
    expect(Number(cpu)).toBeGreaterThan(0.5);
    expect(Number(wall)).toBeGreaterThan(0.5);
    // Relative to the directory it was run from, not to the repository it changes into.
    const logs = join(cwd, "logs");
    expect(readFileSync(join(logs, "costs.tsv"), "utf8")).toBe(`${line ?? ""}\n`);
    const log = readFileSync(join(logs, `${SMALL.replaceAll("/", "_")}.log`), "utf8");
    // The last line of every run (scripts/summary-reporter.ts), without colours.
    expect(log).toMatch(/^tests: [1-9]\d* passed, 0 failed, 0 skipped$/mu);
    expect(existsSync(join(logs, `${SMALL.replaceAll("/", "_")}.log.times`))).toBe(false);
  });
});
