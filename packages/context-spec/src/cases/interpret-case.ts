// The reference interpreter applied to a case: the suite's spec page gives the template,
// suite.json the context, the case folder the input.

import { readFileSync } from "node:fs";
import * as path from "node:path";
import { templateBlock } from "../interpreter/fenced-blocks.ts";
import { interpret, type InterpretResult, VALIDATING_CONTEXTS } from "../interpreter/interpret.ts";
import type { Suite } from "./scan.ts";

/** The suite's template text, or null when suite.json names no template. */
export function suiteTemplate(suite: Suite): string | null {
  const file = suite.definition.template;
  if (file === null) return null;
  return templateBlock(readFileSync(path.join(suite.root, file), "utf8"), file);
}

/** Whether the interpreter can also judge invalid inputs (CLAUDE.md states and deliveries). */
export function interpreterValidates(suite: Suite): boolean {
  const context = suite.definition.templateContext;
  return VALIDATING_CONTEXTS.some((name) => context === name || context.startsWith(`${name}:`));
}

export function interpretCaseInput(
  suite: Suite,
  template: string,
  input: Uint8Array,
  output: string,
): InterpretResult {
  return interpret({ template, templateContext: suite.definition.templateContext, input, output });
}
