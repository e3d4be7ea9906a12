// The update mode: renders every case again and writes <expected>.new beside each expected
// file whose bytes differ (or that does not exist yet). It never touches an expected file
// itself; `bless` promotes one case at a time after review.

import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { TemplateError } from "../interpreter/template.ts";
import { readAnswer } from "../runner/protocol.ts";
import { argumentsFor, type Implementation } from "../runner/run-case.ts";
import { runProcess } from "../runner/spawn.ts";
import { interpretCaseInput, interpreterValidates, suiteTemplate } from "./interpret-case.ts";
import {
  canonicalErrorLine,
  listSuiteNames,
  scanSuite,
  type SpecCase,
  type Suite,
} from "./scan.ts";
import { EXPECTED_ERROR_FILE, PENDING_SUFFIX } from "./suite.ts";

/** Where new expectations come from: the spec's own template, or any runner-protocol command. */
export type UpdateSource =
  | { readonly kind: "interpreter" }
  | { readonly kind: "command"; readonly implementation: Implementation };

export interface UpdateReport {
  /** Paths (relative to the root) of .new files written. */
  readonly written: string[];
  /** Paths of stale .new files removed because the expected file already holds those bytes. */
  readonly removed: string[];
  unchanged: number;
  readonly problems: string[];
}

type Answer =
  | { readonly bytes: Uint8Array }
  | { readonly error: { readonly code: string; readonly path: string } };

export async function updateCases(
  root: string,
  source: UpdateSource,
  suites: readonly string[] | "all" = "all",
): Promise<UpdateReport> {
  const report: UpdateReport = { written: [], removed: [], unchanged: 0, problems: [] };
  const names = suites === "all" ? listSuiteNames(root) : suites;
  for (const name of names) {
    const scan = scanSuite(root, name);
    if (scan.suite === null) {
      report.problems.push(...scan.problems);
      continue;
    }
    const template = source.kind === "interpreter" ? suiteTemplate(scan.suite) : null;
    if (source.kind === "interpreter" && template === null) {
      report.problems.push(
        `cases/${name}: suite.json names no template; update it with a command instead.`,
      );
      continue;
    }
    for (const { specCase } of scan.cases) {
      if (!existsSync(specCase.input)) continue;
      if (
        source.kind === "interpreter" &&
        !interpreterValidates(scan.suite) &&
        specCase.expectation.kind === "error"
      )
        continue;
      const answers = await answersFor(scan.suite, specCase, source, template);
      if (typeof answers === "string")
        report.problems.push(`cases/${name}/${specCase.id}: ${answers}`);
      else writePending(root, scan.suite, specCase, answers, report);
    }
  }
  return report;
}

async function answersFor(
  suite: Suite,
  specCase: SpecCase,
  source: UpdateSource,
  template: string | null,
): Promise<Answer[] | string> {
  const input = readFileSync(specCase.input);
  const answers: Answer[] = [];
  for (const { arg } of suite.definition.outputs) {
    if (source.kind === "interpreter") {
      try {
        const result = interpretCaseInput(suite, template ?? "", input, arg);
        answers.push(
          result.ok ? { bytes: new TextEncoder().encode(result.text) } : { error: result.error },
        );
      } catch (error) {
        if (!(error instanceof TemplateError || error instanceof SyntaxError)) throw error;
        return `the spec interpreter cannot render it (${error.message}); nothing written.`;
      }
      continue;
    }
    const { implementation } = source;
    const outcome = await runProcess({
      ...implementation,
      args: argumentsFor(implementation.args, arg),
      input,
    });
    const answer = readAnswer(outcome, implementation.timeoutMs);
    if (answer.kind === "timeout" || answer.kind === "broken")
      return `${answer.kind === "timeout" ? "timed out" : answer.detail}; nothing written.`;
    answers.push(answer.kind === "bytes" ? { bytes: answer.bytes } : { error: answer.error });
  }
  return answers;
}

function writePending(
  root: string,
  suite: Suite,
  specCase: SpecCase,
  answers: readonly Answer[],
  report: UpdateReport,
): void {
  const errors = answers.filter((answer) => "error" in answer);
  if (errors.length > 0 && errors.length < answers.length) {
    report.problems.push(
      `cases/${suite.name}/${specCase.id}: some outputs rendered and some failed; nothing written.`,
    );
    return;
  }
  const first = answers[0];
  const targets: { file: string; bytes: Uint8Array }[] =
    first !== undefined && "error" in first
      ? [
          {
            file: EXPECTED_ERROR_FILE,
            bytes: new TextEncoder().encode(canonicalErrorLine(first.error)),
          },
        ]
      : suite.definition.outputs.map((output, index) => {
          const answer = answers[index];
          return {
            file: output.expected,
            bytes: answer !== undefined && "bytes" in answer ? answer.bytes : new Uint8Array(),
          };
        });
  for (const target of targets) {
    const file = path.join(specCase.dir, target.file);
    const pending = file + PENDING_SUFFIX;
    const relative = path.relative(root, pending);
    if (existsSync(file) && Buffer.compare(readFileSync(file), target.bytes) === 0) {
      report.unchanged++;
      if (existsSync(pending)) {
        rmSync(pending);
        report.removed.push(relative);
      }
      continue;
    }
    writeFileSync(pending, target.bytes);
    report.written.push(relative);
  }
}
