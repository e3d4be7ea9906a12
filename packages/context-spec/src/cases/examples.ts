// Executable examples: a fenced block whose info string is `example <suite>/<case-id> [file]`
// must equal that case's expected file, and `input <suite>/<case-id>` its input file.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { fencedBlocks } from "../interpreter/fenced-blocks.ts";
import { compareCodePoints } from "../interpreter/unicode.ts";
import { loadSuite } from "./load.ts";
import { EXPECTED_ERROR_FILE } from "./suite.ts";

const REFERENCE = /^(example|input) ([a-z0-9-]+)\/([a-z0-9-]+)(?: ([A-Za-z0-9._-]+))?$/;

export function specPages(root: string): string[] {
  const dir = path.join(root, "spec");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith(".md"))
    .sort(compareCodePoints)
    .map((file) => `spec/${file}`);
}

/** Every example/input block of the given spec pages (default: all), with the problems found. */
export function checkExamples(
  root: string,
  pages: readonly string[] = specPages(root),
): { readonly blocks: number; readonly problems: string[] } {
  const problems: string[] = [];
  let blocks = 0;
  for (const page of pages) {
    for (const block of fencedBlocks(readFileSync(path.join(root, page), "utf8"))) {
      const where = `${page}:${String(block.line)}`;
      if (!/^(example|input)\b/u.test(block.info)) continue;
      blocks++;
      const reference = REFERENCE.exec(block.info);
      if (reference === null) {
        problems.push(
          `${where}: cannot read "${block.info}"; write "example <suite>/<case-id>" (plus a file name for multi-file suites).`,
        );
        continue;
      }
      const [, kind, suiteName = "", caseId = "", fileName] = reference;
      const file = referencedFile(root, kind === "input", suiteName, caseId, fileName);
      if (typeof file === "string") {
        problems.push(`${where}: ${file}.`);
      } else if (!existsSync(file.path)) {
        problems.push(`${where}: ${path.relative(root, file.path)} does not exist.`);
      } else if (readFileSync(file.path, "utf8") !== block.content) {
        problems.push(
          `${where}: the block differs from ${path.relative(root, file.path)}; one of them drifted.`,
        );
      }
    }
  }
  return { blocks, problems };
}

function referencedFile(
  root: string,
  isInput: boolean,
  suiteName: string,
  caseId: string,
  fileName: string | undefined,
): { path: string } | string {
  let suite;
  try {
    suite = loadSuite(suiteName, root);
  } catch (error) {
    return (error as Error).message;
  }
  const dir = path.join(suite.dir, caseId);
  if (isInput) return { path: path.join(dir, suite.definition.input) };
  if (fileName !== undefined) return { path: path.join(dir, fileName) };
  if (existsSync(path.join(dir, EXPECTED_ERROR_FILE)))
    return { path: path.join(dir, EXPECTED_ERROR_FILE) };
  const [only, ...more] = suite.definition.outputs;
  if (only === undefined || more.length > 0)
    return `suite ${suiteName} has several outputs: name the expected file after the case id`;
  return { path: path.join(dir, only.expected) };
}
