import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * `pnpm run conformance:jvm` as part of the test run: the Java renderer through the
 * conformance runner (in both modes of the runner protocol) and through the JUnit 5 cases. Without a JDK the test is skipped on a
 * developer's machine and fails under CI=true (scripts/debian-packages.sh installs it).
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCRIPT = fileURLToPath(new URL("./conformance.sh", import.meta.url));
const SUITES = ["claude-md", "claude-md-split"];

function hasJdk(): boolean {
  return spawnSync("javac", ["-version"], { stdio: "ignore" }).status === 0;
}

function caseCount(suite: string): number {
  const index = JSON.parse(
    readFileSync(new URL("../../packages/context-spec/test-cases.json", import.meta.url), "utf8"),
  ) as { cases: { suite: string }[] };
  return index.cases.filter((specCase) => specCase.suite === suite).length;
}

const jdk = hasJdk();
const required = process.env["CI"] === "true";
if (!jdk && !required)
  console.warn(
    "conformance:jvm skipped: no JDK here (CI fails instead). Install it with: sh scripts/debian-packages.sh",
  );

describe.runIf(jdk || required)("the Java renderer (pnpm run conformance:jvm)", () => {
  it("passes every CLAUDE.md case through the runner and through JUnit 5", () => {
    const run = spawnSync("sh", [SCRIPT], {
      cwd: ROOT,
      env: { ...process.env, TALKIDE_NODE: process.execPath },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output.slice(-4000)).toBe(0);
    const counts = SUITES.map(caseCount);
    const cases = counts.reduce((sum, count) => sum + count, 0);
    expect(cases).toBeGreaterThan(100);
    // The runner's summary per suite (claude-md in a session, claude-md-split per case), then
    // the JUnit console launcher's.
    for (const count of counts)
      expect(output).toContain(`${String(count)} cases, ${String(count)} passed, 0 failed`);
    expect(output).toMatch(new RegExp(`\\[\\s+${String(cases + 2)} tests successful\\s+\\]`, "u"));
    expect(output).toMatch(/\[\s+0 tests failed\s+\]/u);
  });
});
