// The spec-drift check: the template in the spec page, rendered by the reference interpreter,
// must give every valid case's expected bytes (and, where the interpreter validates, every
// invalid case's error). CLAUDE.md outputs must also be in canonical form on their own.

import { readFileSync } from "node:fs";
import * as path from "node:path";
import { TemplateError } from "../interpreter/template.ts";
import { canonicalFormProblems } from "./canonical-form.ts";
import { interpretCaseInput, interpreterValidates, suiteTemplate } from "./interpret-case.ts";
import { scanSuite } from "./scan.ts";

const DESCRIBE = (error: { code: string; path: string }): string =>
  `${error.code} at ${JSON.stringify(error.path)}`;

/** Problems for one suite; a suite without a template has none. */
export function checkDrift(root: string, name: string): string[] {
  const scan = scanSuite(root, name);
  if (scan.suite === null) return [];
  const suite = scan.suite;
  let template: string | null;
  try {
    template = suiteTemplate(suite);
  } catch (error) {
    return [`cases/${name}: ${(error as Error).message}`];
  }
  if (template === null) return [];
  const problems: string[] = [];
  for (const { specCase } of scan.cases) {
    const where = `cases/${name}/${specCase.id}`;
    const { expectation } = specCase;
    if (expectation.kind === "incomplete") continue;
    if (expectation.kind === "error" && !interpreterValidates(suite)) continue;
    try {
      const input = readFileSync(specCase.input);
      for (const output of suite.definition.outputs) {
        const result = interpretCaseInput(suite, template, input, output.arg);
        if (expectation.kind === "error") {
          const got = result.ok ? "renders it" : `reports ${DESCRIBE(result.error)}`;
          if (result.ok || DESCRIBE(result.error) !== DESCRIBE(expectation.error)) {
            problems.push(
              `${where}: expected-error.json says ${DESCRIBE(expectation.error)}, but the spec interpreter ${got}.`,
            );
          }
          break;
        }
        const expectedFile = path.join(specCase.dir, output.expected);
        if (!result.ok) {
          problems.push(
            `${where}: has ${output.expected}, but the spec interpreter reports ${DESCRIBE(result.error)}.`,
          );
          continue;
        }
        const expected = readFileSync(expectedFile, "utf8");
        if (result.text !== expected) {
          problems.push(
            `${where}/${output.expected}: differs from the spec template's rendering ${firstDifference(expected, result.text)}.`,
          );
        }
        if (suite.definition.templateContext === "claude-md") {
          problems.push(
            ...canonicalFormProblems(expected).map(
              (problem) => `${where}/${output.expected}: ${problem}`,
            ),
          );
        }
      }
    } catch (error) {
      if (!(error instanceof TemplateError || error instanceof SyntaxError)) throw error;
      problems.push(`${where}: the spec interpreter cannot render it: ${error.message}`);
    }
  }
  return problems;
}

function firstDifference(expected: string, actual: string): string {
  const want = expected.split("\n");
  const got = actual.split("\n");
  const line = want.findIndex((text, index) => text !== got[index]);
  const at = line < 0 ? want.length : line;
  return `at line ${String(at + 1)}: expected ${JSON.stringify(want[at] ?? "<end>")}, template gives ${JSON.stringify(got[at] ?? "<end>")}`;
}
