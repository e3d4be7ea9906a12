// The reference interpreter, as a runner-protocol command, passes every CLAUDE.md case
// (single and split) through the conformance runner: the same path a renderer in any
// runtime takes. The single-file suite runs in a session (one process per worker); the split
// suite runs per case (a process per case and output), so both ways of the protocol stay
// proved with a real implementation.

import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runConformance } from "../runner/runner.ts";

const RENDER = fileURLToPath(new URL("./render.ts", import.meta.url));

describe("talkide-spec-render through the conformance runner", () => {
  it.each([
    ["claude-md", "in a session", false],
    ["claude-md-split", "per case", true],
  ])(
    "passes every case of %s (%s)",
    async (suite, _how, perCase) => {
      const report = await runConformance({
        suites: [suite],
        command: process.execPath,
        args: ["--conditions=@talkide/source", RENDER, "--suite", suite, "--output", "{output}"],
        perCase,
      });
      expect(
        report.results
          .filter((result) => !result.ok)
          .map((result) => `${result.id}: ${result.detail}`),
      ).toEqual([]);
      expect(report.results.length).toBeGreaterThan(0);
    },
    120_000,
  );
});
