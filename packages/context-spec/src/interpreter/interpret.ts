// One entry point for "render this case's input with the spec's own template": the template
// contexts a suite.json can name (spec/README.md, "suite.json").

import { readClaudeMdState } from "./claude-md-state.ts";
import { isSplitFile, splitClaudeMd } from "./split.ts";
import { readStandingInput } from "./standing-input.ts";
import { parseTemplate, renderTemplate, TemplateError } from "./template.ts";
import { readWakeDelivery } from "./wake-delivery.ts";

/** What an input was refused with: the error of the spec page, `{ code, path }`. */
export interface InterpretError {
  readonly code: string;
  readonly path: string;
}

export type InterpretResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: InterpretError };

/** The contexts whose reading also judges invalid inputs (and so must report their errors). */
export const VALIDATING_CONTEXTS: readonly string[] = [
  "claude-md",
  "claude-md-split",
  "wake-prompt",
];

export interface InterpretRequest {
  /** The content of the spec page's ```template block. */
  readonly template: string;
  /** suite.json "templateContext": "claude-md", "claude-md-split", "claude-md-split:<file>" or "input". */
  readonly templateContext: string;
  /** The raw bytes of the case's input file. */
  readonly input: Uint8Array;
  /** The output's "arg" in suite.json (which file of a multi-file suite). */
  readonly output: string;
}

export function interpret(request: InterpretRequest): InterpretResult {
  const { templateContext } = request;
  if (templateContext === "input")
    return {
      ok: true,
      text: renderTemplate(parseTemplate(request.template), readInput(request.input)),
    };
  if (templateContext === "wake-prompt" || templateContext === "standing-prompt") {
    const read =
      templateContext === "wake-prompt"
        ? readWakeDelivery(request.input)
        : { ok: true as const, context: readStandingInput(readInput(request.input)) };
    if (!read.ok) return read;
    return { ok: true, text: renderTemplate(parseTemplate(request.template), read.context) };
  }
  if (templateContext !== "claude-md" && !templateContext.startsWith("claude-md-split")) {
    throw new TemplateError(
      `Unknown templateContext "${templateContext}": use claude-md, claude-md-split, wake-prompt, standing-prompt or input.`,
    );
  }
  const state = readClaudeMdState(request.input);
  if (!state.ok) return state;
  const single = renderTemplate(
    parseTemplate(request.template),
    state.context as unknown as Record<string, unknown>,
  );
  if (templateContext === "claude-md") return { ok: true, text: single };
  const file =
    templateContext === "claude-md-split"
      ? request.output
      : templateContext.slice("claude-md-split:".length);
  if (!isSplitFile(file)) {
    throw new TemplateError(
      `The split form has the files CLAUDE.md and .talkide/active-writer.md, not "${file}".`,
    );
  }
  return { ok: true, text: splitClaudeMd(single, file) };
}

function readInput(bytes: Uint8Array): Record<string, unknown> {
  const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TemplateError('A suite with templateContext "input" needs a JSON object as input.');
  }
  return value as Record<string, unknown>;
}
