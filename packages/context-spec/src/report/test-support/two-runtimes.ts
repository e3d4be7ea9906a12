import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGE_ROOT } from "../../cases/package-root.ts";
import { runConformance } from "../../runner/runner.ts";
import { CLAUDE_MD_SUITES } from "../../cases/kotlin-test-class.ts";
import { runResult, writeRunResult, type RunResult } from "../result.ts";

const RENDER_BIN = fileURLToPath(new URL("../../bin/render.ts", import.meta.url));
const BREAK_BIN = fileURLToPath(new URL("./break-one-case.ts", import.meta.url));

/** The case the "broken" runtime gets wrong, and only it. */
export const BROKEN_CASE = "claude-md/worked-example";

export interface TwoRuntimes {
  /** A scratch folder; its results/ holds reference/run.json and broken/run.json. */
  readonly dir: string;
  readonly results: string;
  readonly reference: string;
  readonly broken: string;
}

async function run(
  name: string,
  file: string,
  command: readonly string[],
  finishedAt: Date,
): Promise<RunResult> {
  for (const suite of CLAUDE_MD_SUITES) {
    const [bin = "", ...args] = command;
    const report = await runConformance({
      command: process.execPath,
      args: [
        "--conditions=@talkide/source",
        bin,
        ...args,
        "--suite",
        suite,
        "--output",
        "{output}",
      ],
      suites: [suite],
      timeoutMs: 60_000,
    });
    writeRunResult(
      file,
      runResult(report, { name, version: "test 1.0", commit: "0123456789abcdef0123" }, finishedAt),
    );
  }
  return JSON.parse(readFileSync(file, "utf8")) as RunResult;
}

/**
 * Runs both CLAUDE.md suites twice through the real runner: with the reference interpreter
 * ("reference") and with a copy that breaks one case by a no-break space ("broken").
 */
export async function twoRuntimes(): Promise<TwoRuntimes> {
  const dir = mkdtempSync(join(tmpdir(), "talkide-report-"));
  const input = readFileSync(join(PACKAGE_ROOT, "cases", BROKEN_CASE, "state.json"));
  const sha = createHash("sha256").update(input).digest("hex");
  const results = join(dir, "results");
  const reference = join(results, "reference", "run.json");
  const broken = join(results, "broken", "run.json");
  const when = new Date("2026-12-01T10:00:00Z");
  await run("reference", reference, [RENDER_BIN], when);
  await run("broken", broken, [BREAK_BIN, `${BROKEN_CASE.split("/")[0] ?? ""}:${sha}`], when);
  return { dir, results, reference, broken };
}
