#!/usr/bin/env node
// talkide-conformance: runs any implementation command over the spec cases by the runner
// protocol (spec/runner-protocol.md). Exit 0: every case passed or is a known failure.
// Exit 1: some case did not. Exit 2: the run itself could not be set up (usage, bad list).

import { Command, CommanderError, InvalidArgumentError } from "commander";
import { readKnownFailures } from "../runner/known-failures.ts";
import { humanLines, jsonLine, summaryLine } from "../runner/report.ts";
import { DEFAULT_TIMEOUT_MS, runConformance } from "../runner/runner.ts";
import { runResult, writeRunResult } from "../report/result.ts";

const SETUP_FAILED = 2;

// A reader that stops early (`| head`) is not an error of the run.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1)
    throw new InvalidArgumentError("must be a whole number ≥ 1.");
  return number;
}

interface Options {
  suite: string[];
  include: string[];
  exclude: string[];
  timeout: number;
  knownFailures?: string;
  jobs?: number;
  perCase?: boolean;
  json?: boolean;
  root?: string;
  result?: string;
  implementation?: string;
  implementationVersion: string;
  commit: string;
}

const program = new Command()
  .name("talkide-conformance")
  .description(
    "Run an implementation over the byte-exact spec cases (runner protocol: stdin input → stdout bytes, or exit 2 with one JSON error line on stderr).",
  )
  .usage("[options] -- <command> [args...]")
  .option("--suite <name>", 'suite to run, repeatable; "all" for every suite', collect, [])
  .option(
    "--include <glob>",
    'only cases matching the glob (case id, or "<suite>/<case-id>" when it has a "/"); repeatable',
    collect,
    [],
  )
  .option("--exclude <glob>", "skip cases matching the glob; repeatable", collect, [])
  .option("--timeout <ms>", "per case and output", positiveInteger, DEFAULT_TIMEOUT_MS)
  .option(
    "--known-failures <file>",
    "file of <suite>/<case-id> lines expected not to pass; one that passes fails the run",
  )
  .option("--jobs <n>", "cases run at the same time (default: up to 4)", positiveInteger)
  .option(
    "--per-case",
    "start the command once per case and output, even if it speaks the session mode",
  )
  .option("--json", "one JSON object per case on stdout instead of the human report")
  .option("--root <dir>", "package root holding cases/ (default: this package)")
  .option("--result <file>", "also write the run's result file (JSON) for the report page")
  .option("--implementation <name>", "the runtime's name in the result file (with --result)")
  .option("--implementation-version <version>", "the runtime's version in the result file", "")
  .option("--commit <sha>", "the source commit of the runtime, in the result file", "")
  .argument(
    "<command>",
    "the implementation to run; {output} in its arguments becomes the output's arg",
  )
  .argument("[args...]", "arguments of the implementation")
  .exitOverride()
  .action(async (command: string, args: string[], options: Options) => {
    if (options.result !== undefined && options.implementation === undefined)
      throw new Error("--result needs --implementation <name>.");
    const suites =
      options.suite.length === 0 || options.suite.includes("all") ? "all" : options.suite;
    const report = await runConformance({
      command,
      args,
      suites,
      include: options.include,
      exclude: options.exclude,
      timeoutMs: options.timeout,
      ...(options.knownFailures === undefined
        ? {}
        : { knownFailures: readKnownFailures(options.knownFailures) }),
      ...(options.jobs === undefined ? {} : { jobs: options.jobs }),
      perCase: options.perCase === true,
      ...(options.root === undefined ? {} : { root: options.root }),
    });
    for (const result of report.results) {
      process.stdout.write(
        options.json === true ? `${jsonLine(result)}\n` : `${humanLines(result).join("\n")}\n`,
      );
    }
    (options.json === true ? process.stderr : process.stdout).write(`${summaryLine(report)}\n`);
    if (options.result !== undefined)
      writeRunResult(
        options.result,
        runResult(report, {
          name: options.implementation ?? "",
          version: options.implementationVersion,
          commit: options.commit,
        }),
      );
    process.exitCode = report.ok ? 0 : 1;
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : SETUP_FAILED;
  } else {
    process.stderr.write(`talkide-conformance: ${(error as Error).message}\n`);
    process.exitCode = SETUP_FAILED;
  }
}
