// The reference interpreter, as a runner-protocol command, passes every CLAUDE.md case
// (single and split) through the conformance runner: the same path a renderer in any
// runtime takes.

import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runConformance } from "../runner/runner.ts";

const RENDER = fileURLToPath(new URL("./render.ts", import.meta.url));

describe("talkide-spec-render through the conformance runner", () => {
  it.each(["claude-md", "claude-md-split"])(
    "passes every case of %s",
    async (suite) => {
      const report = await runConformance({
        suites: [suite],
        command: process.execPath,
        args: ["--conditions=@talkide/source", RENDER, "--suite", suite, "--output", "{output}"],
        jobs: 4,
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
