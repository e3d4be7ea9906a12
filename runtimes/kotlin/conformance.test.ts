import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * `pnpm run conformance:jvm` as part of the test run: the Kotlin renderer through the
 * conformance runner (both modes of the runner protocol) and the generated
 * MaraContextRendererTestCases.kt under JUnit 5. The run's result file stays where the report
 * page is built from (conformance-results/, or TALKIDE_CONFORMANCE_RESULTS): `pnpm run release`
 * builds the page from the results of its own test run. Without a JDK or the kotlin-compiler package the test is skipped on a developer's
 * machine and fails under CI=true (scripts/debian-packages.sh and the install provide them).
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCRIPT = fileURLToPath(new URL("./conformance.sh", import.meta.url));
const KOTLINC = join(ROOT, "node_modules/kotlin-compiler/bin/kotlinc");
const SUITES = ["claude-md", "claude-md-split"];

function hasToolchain(): boolean {
  return spawnSync("java", ["-version"], { stdio: "ignore" }).status === 0 && existsSync(KOTLINC);
}

function caseCount(suite: string): number {
  const index = JSON.parse(
    readFileSync(new URL("../../packages/context-spec/test-cases.json", import.meta.url), "utf8"),
  ) as { cases: { suite: string }[] };
  return index.cases.filter((specCase) => specCase.suite === suite).length;
}

/** `node --conditions=@talkide/source <args>` from the repository root. */
function node(...args: string[]): { status: number | null; output: string } {
  const child = spawnSync(process.execPath, ["--conditions=@talkide/source", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: child.status, output: `${child.stdout}\n${child.stderr}` };
}

const RUNNER = join(ROOT, "packages/context-spec/src/bin/conformance.ts");
const REPORT = join(ROOT, "packages/context-spec/src/bin/report.ts");
const TS_RENDER = join(ROOT, "packages/renderer/src/bin/render.ts");

const toolchain = hasToolchain();
const required = process.env["CI"] === "true";
if (!toolchain && !required)
  console.warn(
    "conformance:jvm skipped: no JDK or kotlin-compiler here (CI fails instead). Install them with: pnpm install && sh scripts/debian-packages.sh",
  );

const RESULTS = join(
  process.env["TALKIDE_CONFORMANCE_RESULTS"] ?? join(ROOT, "conformance-results"),
  "kotlin",
);
const resultFiles = (): string[] => (existsSync(RESULTS) ? readdirSync(RESULTS) : []);
/** The result file the Kotlin run wrote, for the report test after it. */
let kotlinResult = "";

describe.runIf(toolchain || required)("the Kotlin renderer (pnpm run conformance:jvm)", () => {
  it("passes every CLAUDE.md case through the runner and the generated class under JUnit 5, and writes its result", () => {
    expect(existsSync(KOTLINC), `${KOTLINC} is missing: pnpm install`).toBe(true);
    const before = new Set(resultFiles());
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
    // Both suites in one session run, the split suite again per case, then JUnit's summary:
    // one test per case of the generated class, and this runtime's own split-form test.
    expect(output).toContain(`${String(cases)} cases, ${String(cases)} passed, 0 failed`);
    expect(output).toContain(`${String(counts[1])} cases, ${String(counts[1])} passed, 0 failed`);
    expect(output).toMatch(new RegExp(`\\[\\s+${String(cases + 1)} tests successful\\s+\\]`, "u"));
    expect(output).toMatch(/\[\s+0 tests failed\s+\]/u);

    const files = resultFiles().filter((file) => !before.has(file));
    expect(files).toHaveLength(1);
    const result = JSON.parse(readFileSync(join(RESULTS, files[0] ?? ""), "utf8")) as {
      implementation: { name: string; version: string };
      passed: number;
      failed: number;
    };
    expect(result.implementation.name).toBe("kotlin");
    expect(result.implementation.version).toMatch(/Kotlin 2\.\d+\.\d+, Java \d+/u);
    expect([result.passed, result.failed]).toEqual([cases, 0]);
    kotlinResult = join(RESULTS, files[0] ?? "");
  });

  it("gives, with the TypeScript runtime's result, a complete report page in which both pass", () => {
    expect(kotlinResult, "the Kotlin run above wrote no result").not.toBe("");
    const dir = mkdtempSync(join(tmpdir(), "talkide-report-"));
    try {
      mkdirSync(join(dir, "results", "kotlin"), { recursive: true });
      copyFileSync(kotlinResult, join(dir, "results", "kotlin", "run.json"));
      const typescript = join(dir, "results", "typescript", "run.json");
      const renderer = [process.execPath, "--conditions=@talkide/source", TS_RENDER];
      for (const [suite, args] of [
        ["claude-md", []],
        ["claude-md-split", ["--layout", "split", "--file", "{output}"]],
      ] as const) {
        const run = node(
          RUNNER,
          "--suite",
          suite,
          "--result",
          typescript,
          "--implementation",
          "typescript",
          "--",
          ...renderer,
          ...args,
        );
        expect(run.status, run.output.slice(-2000)).toBe(0);
      }
      const out = join(dir, "page");
      const build = node(
        REPORT,
        "build",
        "--results",
        join(dir, "results"),
        "--out",
        out,
        "--runtime",
        "typescript",
        "--runtime",
        "kotlin",
      );
      expect(build.status, build.output).toBe(0);
      const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as {
        complete: boolean;
        specVersions: { cases: string[]; runtimes: { name: string; state: string }[] }[];
      };
      expect(report.complete).toBe(true);
      expect(report.specVersions[0]?.cases).toHaveLength(
        SUITES.map(caseCount).reduce((a, b) => a + b, 0),
      );
      expect(
        report.specVersions[0]?.runtimes.map((runtime) => [runtime.name, runtime.state]),
      ).toEqual([
        ["typescript", "passing"],
        ["kotlin", "passing"],
      ]);
      const html = readFileSync(join(out, "index.html"), "utf8");
      expect(html).not.toMatch(/<td class="(fail|missing)"/u);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
