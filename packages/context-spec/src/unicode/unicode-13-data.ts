// The data file that binds the spec's character rules to one Unicode version: the code
// points Unicode 13.0.0 leaves unassigned (General_Category Cn), one range per line in the
// notation of the Unicode Character Database. It is plain text so that any runtime (a JVM,
// a Kotlin backend) can load it; this module reads it for the TypeScript runtimes.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../cases/package-root.ts";

export const UNICODE_VERSION = "13.0.0";

/** Where the data file lives, relative to the package root. */
export const UNASSIGNED_DATA_FILE = `unicode/unassigned-${UNICODE_VERSION}.txt`;

/** Ranges as written in the data file: inclusive first and last code point. */
export interface CodePointRange {
  readonly first: number;
  readonly last: number;
}

export function formatUnassignedData(ranges: readonly CodePointRange[]): string {
  const hex = (codePoint: number): string => codePoint.toString(16).toUpperCase().padStart(4, "0");
  const header = [
    `# Code points that Unicode ${UNICODE_VERSION} leaves unassigned (General_Category=Cn),`,
    "# noncharacters included. The character rules of spec/claude-md.md are bound to Unicode",
    `# ${UNICODE_VERSION}; a runtime whose Unicode database is newer treats these code points as`,
    `# Unicode ${UNICODE_VERSION} does (see "Unicode version" in spec/claude-md.md).`,
    "# One range per line, first..last inclusive, in hexadecimal; '#' starts a comment.",
  ];
  const lines = ranges.map(({ first, last }) =>
    first === last ? hex(first) : `${hex(first)}..${hex(last)}`,
  );
  return `${[...header, ...lines].join("\n")}\n`;
}

export function parseUnassignedData(text: string): CodePointRange[] {
  const ranges: CodePointRange[] = [];
  for (const rawLine of text.split("\n")) {
    const line = rawLine.replace(/#.*/u, "").trim();
    if (line === "") continue;
    const [firstText = "", lastText = firstText] = line.split("..");
    const first = Number.parseInt(firstText, 16);
    const last = Number.parseInt(lastText, 16);
    if (Number.isNaN(first) || Number.isNaN(last))
      throw new Error(`${UNASSIGNED_DATA_FILE}: cannot read the line "${rawLine}".`);
    ranges.push({ first, last });
  }
  return ranges;
}

export function readUnassignedData(): CodePointRange[] {
  return parseUnassignedData(readFileSync(join(PACKAGE_ROOT, UNASSIGNED_DATA_FILE), "utf8"));
}
