/** Drives `talkide-prompts <subcommand>` through the context-spec conformance runner. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect } from "vitest";
import { CONFORMANCE_BIN, PROMPTS_BIN } from "./paths.ts";

const run = promisify(execFile);

interface CaseLine {
  readonly id: string;
  readonly suite: string;
  readonly ok: boolean;
  readonly status: string;
}

/** Runs one suite with `--json` and expects every case to pass; returns the case count. */
export async function expectSuitePasses(suite: string, subcommand: string): Promise<number> {
  const { stdout } = await run(process.execPath, [
    "--conditions=@talkide/source",
    CONFORMANCE_BIN,
    "--suite",
    suite,
    "--json",
    "--",
    process.execPath,
    "--conditions=@talkide/source",
    PROMPTS_BIN,
    subcommand,
  ]);
  const results = stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as CaseLine);
  expect(results.filter((result) => !result.ok)).toEqual([]);
  expect(new Set(results.map((result) => result.suite))).toEqual(new Set([suite]));
  return results.length;
}
