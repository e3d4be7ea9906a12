// suite.json: how one suite of cases is driven (spec/README.md, "suite.json").

export interface SuiteOutput {
  /** Replaces the token {output} in the implementation's arguments. */
  readonly arg: string;
  /** File name, inside each case folder, of this output's expected bytes. */
  readonly expected: string;
}

export interface SuiteDefinition {
  readonly title: string;
  /** Spec page, relative to the package root. */
  readonly spec: string;
  /** File name of the input inside each case folder. */
  readonly input: string;
  readonly outputs: readonly SuiteOutput[];
  /** Spec page whose ```template block the reference interpreter renders, if any. */
  readonly template: string | null;
  readonly templateContext: string;
}

export const EXPECTED_ERROR_FILE = "expected-error.json";
export const DESCRIPTION_FILE = "description.txt";
export const PENDING_SUFFIX = ".new";
export const KEBAB_CASE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const KNOWN_KEYS = ["title", "spec", "input", "outputs", "template", "templateContext"];

/** Parses suite.json text; throws an Error whose message says what to fix. */
export function parseSuiteDefinition(text: string): SuiteDefinition {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`suite.json is not JSON (${(error as Error).message}).`, { cause: error });
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new Error("suite.json must hold an object.");
  const object = raw as Record<string, unknown>;
  const unknown = Object.keys(object).filter((key) => !KNOWN_KEYS.includes(key));
  if (unknown.length > 0)
    throw new Error(
      `suite.json has unknown keys ${unknown.join(", ")}; allowed: ${KNOWN_KEYS.join(", ")}.`,
    );
  const title = requireText(object, "title");
  const spec = requireText(object, "spec");
  const input = requireFileName(requireText(object, "input"), "input");
  const outputs = object["outputs"];
  if (!Array.isArray(outputs) || outputs.length === 0)
    throw new Error('suite.json "outputs" must be a non-empty array.');
  const parsedOutputs = (outputs as unknown[]).map((entry, index) => parseOutput(entry, index));
  const names = parsedOutputs.map((output) => output.expected);
  for (const name of names) {
    if (
      name === input ||
      name === DESCRIPTION_FILE ||
      name === EXPECTED_ERROR_FILE ||
      name.endsWith(PENDING_SUFFIX)
    ) {
      throw new Error(`suite.json output file "${name}" collides with a reserved case file name.`);
    }
  }
  if (new Set(names).size !== names.length)
    throw new Error("suite.json outputs must name different expected files.");
  if (new Set(parsedOutputs.map((output) => output.arg)).size !== names.length) {
    throw new Error('suite.json outputs must have different "arg" values.');
  }
  const template = object["template"] === undefined ? null : requireText(object, "template");
  const templateContext =
    object["templateContext"] === undefined ? "claude-md" : requireText(object, "templateContext");
  return { title, spec, input, outputs: parsedOutputs, template, templateContext };
}

function parseOutput(entry: unknown, index: number): SuiteOutput {
  if (typeof entry !== "object" || entry === null)
    throw new Error(`suite.json outputs[${String(index)}] must be an object.`);
  const { arg, expected } = entry as Record<string, unknown>;
  if (typeof arg !== "string")
    throw new Error(`suite.json outputs[${String(index)}].arg must be a string ("" if unused).`);
  if (typeof expected !== "string")
    throw new Error(`suite.json outputs[${String(index)}].expected must be a file name.`);
  return { arg, expected: requireFileName(expected, `outputs[${String(index)}].expected`) };
}

function requireText(object: Record<string, unknown>, key: string): string {
  const value = object[key];
  if (typeof value !== "string" || value.trim() === "")
    throw new Error(`suite.json "${key}" must be a non-empty string.`);
  return value;
}

function requireFileName(value: string, key: string): string {
  if (!FILE_NAME.test(value))
    throw new Error(`suite.json "${key}" must be a plain file name, not "${value}".`);
  return value;
}
