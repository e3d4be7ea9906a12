#!/usr/bin/env node
// talkide-spec: maintenance of the spec cases: index, check, update, bless.

import { Command, CommanderError, InvalidArgumentError } from "commander";
import { blessCase } from "../cases/bless.ts";
import { checkPackage } from "../cases/check.ts";
import { checkDrift } from "../cases/drift.ts";
import { checkExamples } from "../cases/examples.ts";
import { writeIndex } from "../cases/index-files.ts";
import { KOTLIN_TEST_CLASS_FILE, writeKotlinTestClass } from "../cases/kotlin-test-class.ts";
import { PACKAGE_ROOT } from "../cases/package-root.ts";
import { updateCases, type UpdateSource } from "../cases/update.ts";
import { DEFAULT_TIMEOUT_MS } from "../runner/runner.ts";

const SETUP_FAILED = 2;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1)
    throw new InvalidArgumentError("must be a whole number ≥ 1.");
  return number;
}

const out = (line: string): boolean => process.stdout.write(`${line}\n`);

const program = new Command()
  .name("talkide-spec")
  .description("Maintain the byte-exact spec cases of @talkide/context-spec.")
  .option("--root <dir>", "package root holding cases/ and spec/", PACKAGE_ROOT)
  .exitOverride();

const root = (): string => program.opts<{ root: string }>().root;

program
  .command("index")
  .description(`write manifest.json, test-cases.json and ${KOTLIN_TEST_CLASS_FILE} from cases/`)
  .action(() => {
    const index = writeIndex(root());
    writeKotlinTestClass(root());
    out(
      `wrote manifest.json, test-cases.json and ${KOTLIN_TEST_CLASS_FILE} (${String(index.suites.size)} suites)`,
    );
  });

program
  .command("check")
  .description(
    "report missing, orphaned and pending files, a stale index, spec drift and drifted examples; writes nothing",
  )
  .action(() => {
    const result = checkPackage(root());
    const problems = [...result.global];
    for (const [suite, list] of Object.entries(result.suites)) {
      const all = [...list, ...checkDrift(root(), suite)];
      out(`${all.length === 0 ? "ok  " : "FAIL"} ${suite}`);
      problems.push(...all);
    }
    problems.push(...checkExamples(root()).problems);
    for (const problem of problems) out(`  - ${problem}`);
    process.exitCode = problems.length === 0 ? 0 : 1;
  });

program
  .command("update")
  .description(
    "render every case again and write <expected>.new where bytes differ (default: with the spec interpreter)",
  )
  .option("--suite <name>", "suite to update, repeatable (default: every suite)", collect, [])
  .option("--timeout <ms>", "per case, when a command renders", positiveInteger, DEFAULT_TIMEOUT_MS)
  .argument(
    "[command...]",
    "a runner-protocol command to render with instead of the interpreter (after --)",
  )
  .action(async (command: string[], options: { suite: string[]; timeout: number }) => {
    const [executable, ...args] = command;
    const source: UpdateSource =
      executable === undefined
        ? { kind: "interpreter" }
        : {
            kind: "command",
            implementation: { command: executable, args, timeoutMs: options.timeout },
          };
    const report = await updateCases(
      root(),
      source,
      options.suite.length === 0 ? "all" : options.suite,
    );
    for (const file of report.written) out(`wrote   ${file}`);
    for (const file of report.removed)
      out(`removed ${file} (the expected file already holds these bytes)`);
    for (const problem of report.problems) out(`problem ${problem}`);
    out(
      `${String(report.written.length)} pending, ${String(report.unchanged)} unchanged; review each .new file, then: talkide-spec bless <suite>/<case-id>`,
    );
    process.exitCode = report.problems.length === 0 ? 0 : 1;
  });

program
  .command("bless")
  .description("promote the reviewed .new files of one case and rewrite the index")
  .argument("<case>", "<suite>/<case-id>")
  .action((caseRef: string) => {
    const report = blessCase(root(), caseRef);
    for (const file of report.deleted) out(`deleted  ${file}`);
    for (const file of report.promoted) out(`promoted ${file}`);
    out("rewrote manifest.json and test-cases.json");
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? 0 : SETUP_FAILED;
  else {
    process.stderr.write(`talkide-spec: ${(error as Error).message}\n`);
    process.exitCode = SETUP_FAILED;
  }
}
