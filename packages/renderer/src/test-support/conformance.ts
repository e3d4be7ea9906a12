import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type ConformanceChildRun,
  failedCases,
  runConformanceProcess,
  sourceCommand,
} from "@talkide/context-spec/testing";

/** The repository root, and the render bin the conformance tests drive. */
export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
export const RENDER_BIN = `${REPO_ROOT}packages/renderer/src/bin/render.ts`;

/**
 * Runs the context-spec conformance runner (from source) over `suite`, with the render bin
 * at `bin` as the implementation: `node --conditions=@talkide/source <bin> <binArgs...>`.
 */
export function runConformance(
  suite: string,
  bin: string,
  binArgs: ReadonlyArray<string>,
  runnerArgs: ReadonlyArray<string> = [],
): ConformanceChildRun {
  return runConformanceProcess(suite, sourceCommand(bin, ...binArgs), runnerArgs);
}

export { failedCases as failures };

/** The ids of a suite's cases, from its folder: one sub-folder per case. */
export function caseIds(suite: string): string[] {
  return readdirSync(`${REPO_ROOT}packages/context-spec/cases/${suite}`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
