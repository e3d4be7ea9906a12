/** Paths the tests use: this package, the repository, and the spec package's files. */
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));
export const REPO_DIR = fileURLToPath(new URL("../../../../", import.meta.url));
export const CONTEXT_SPEC_DIR = `${REPO_DIR}packages/context-spec/`;
export const PROMPTS_BIN = `${PACKAGE_DIR}src/bin/talkide-prompts.ts`;
export const MARA_PLUGIN_BIN = `${PACKAGE_DIR}src/bin/talkide-mara-plugin.ts`;

/** A case file of the spec package, e.g. `caseFile("wake-prompt", "dm-basic", "expected.txt")`. */
export function caseFile(suite: string, id: string, file: string): string {
  return `${CONTEXT_SPEC_DIR}cases/${suite}/${id}/${file}`;
}

export function specPage(name: string): string {
  return `${CONTEXT_SPEC_DIR}spec/${name}`;
}

/** The content of the single ```template block of a spec page (same rule as context-spec). */
export function templateBlockOf(markdown: string): string {
  const lines = markdown.split("\n");
  const start = lines.indexOf("```template");
  if (start < 0) throw new Error("no ```template block");
  const end = lines.indexOf("```", start + 1);
  if (end < 0) throw new Error("unclosed ```template block");
  return lines
    .slice(start + 1, end)
    .map((line) => `${line}\n`)
    .join("");
}
