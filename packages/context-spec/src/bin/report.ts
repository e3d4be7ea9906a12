#!/usr/bin/env node
// talkide-conformance-report: the public conformance report over the runtimes' result files
// (spec/runner-protocol.md, "Result file"). `build`: the static page, report.json and a badge
// per runtime. `diff`: what changed between two result files. Exit 0: done (diff: the runs
// agree). Exit 1: the results are incomplete (build) or differ (diff). Exit 2: bad usage or an
// unreadable file.

import { Command, CommanderError } from "commander";
import { buildReport } from "../report/build.ts";
import { diffReport, diffResults } from "../report/diff.ts";
import { readRunResult } from "../report/result.ts";

const SETUP_FAILED = 2;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

const program = new Command()
  .name("talkide-conformance-report")
  .description("The conformance report of every runtime: a static page, and a diff of two runs.")
  .exitOverride();

program
  .command("build")
  .description("build the page, report.json and badges from a folder of result files")
  .requiredOption("--results <dir>", "folder of result files (any depth)")
  .requiredOption("--out <dir>", "folder to write (replaced whole)")
  .option("--runtime <name>", "a runtime the page must show; repeatable", collect, [])
  .option("--allow-incomplete", "build even when a runtime's result is missing or lacks cases")
  .action(
    (options: { results: string; out: string; runtime: string[]; allowIncomplete?: boolean }) => {
      const outcome = buildReport({
        resultsDir: options.results,
        outDir: options.out,
        runtimes: options.runtime,
        allowIncomplete: options.allowIncomplete === true,
      });
      for (const problem of outcome.problems) process.stderr.write(`incomplete: ${problem}\n`);
      if (!outcome.ok) {
        process.stderr.write(
          "talkide-conformance-report: not built: every runtime needs a complete result (run it, or pass --allow-incomplete for a preview)\n",
        );
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`wrote ${outcome.outDir}/index.html, report.json and badges/\n`);
    },
  );

program
  .command("diff")
  .description("the cases whose verdict or bytes differ between two result files")
  .argument("<a>", "the earlier result file")
  .argument("<b>", "the later result file")
  .action((a: string, b: string) => {
    const [before, after] = [readRunResult(a), readRunResult(b)];
    process.stdout.write(diffReport(before, after));
    process.exitCode = diffResults(before, after).length === 0 ? 0 : 1;
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? 0 : SETUP_FAILED;
  else {
    process.stderr.write(`talkide-conformance-report: ${(error as Error).message}\n`);
    process.exitCode = SETUP_FAILED;
  }
}
