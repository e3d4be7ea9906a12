/** Drives `talkide-prompts <subcommand>` through the context-spec conformance runner. */
import { failedCases, runConformanceProcess, sourceCommand } from "@talkide/context-spec/testing";
import { expect } from "vitest";
import { PROMPTS_BIN } from "./paths.ts";

/** Runs one suite with `--json` and expects every case to pass; returns the case count. */
export function expectSuitePasses(suite: string, subcommand: string): number {
  const run = runConformanceProcess(suite, sourceCommand(PROMPTS_BIN, subcommand));
  expect(failedCases(run)).toEqual([]);
  expect(run.exitCode).toBe(0);
  expect(new Set(run.cases.map((result) => result.suite))).toEqual(new Set([suite]));
  return run.cases.length;
}
