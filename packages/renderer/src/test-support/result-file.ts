import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { REPO_ROOT } from "./conformance.ts";

/**
 * The runner arguments that make this run write the TypeScript runtime's result file for the
 * conformance report (spec/runner-protocol.md, "Result file"): one file per test run, both
 * CLAUDE.md suites joined in it. TALKIDE_CONFORMANCE_RESULTS moves the folder (default:
 * conformance-results/ at the repository root).
 */
export function resultFileArgs(): string[] {
  const folder = process.env["TALKIDE_CONFORMANCE_RESULTS"] ?? `${REPO_ROOT}conformance-results`;
  const stamp = new Date().toISOString().replace(/[-:]|\.\d+/gu, "");
  const { version } = JSON.parse(
    readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
  ) as { version: string };
  return [
    "--result",
    `${folder}/typescript/${stamp}-${String(process.pid)}.json`,
    "--implementation",
    "typescript",
    "--implementation-version",
    `@talkide/renderer ${version}, Node ${process.version}`,
    "--commit",
    commit(),
  ];
}

/** HEAD, marked "+dirty" when the renderer or the spec package has uncommitted changes. */
function commit(): string {
  try {
    const git = (...args: string[]): string =>
      execFileSync("git", ["-C", REPO_ROOT, ...args], { encoding: "utf8" }).trim();
    const head = git("rev-parse", "HEAD");
    const dirty = git("status", "--porcelain", "--", "packages/renderer", "packages/context-spec");
    return dirty === "" ? head : `${head}+dirty`;
  } catch {
    return "";
  }
}
