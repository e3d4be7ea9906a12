// A known-failures file: one `<suite>/<case-id>` per line; blank lines and lines starting
// with "#" are ignored, as is anything after " #" on a line (a reason).

import { readFileSync } from "node:fs";

const ENTRY = /^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function parseKnownFailures(text: string, source: string): Set<string> {
  const entries = new Set<string>();
  text.split(/\r?\n/u).forEach((raw, index) => {
    const line = raw.replace(/(^|\s)#.*$/u, "").trim();
    if (line === "") return;
    if (!ENTRY.test(line)) {
      throw new Error(
        `${source}:${String(index + 1)}: "${line}" is not a <suite>/<case-id> entry.`,
      );
    }
    entries.add(line);
  });
  return entries;
}

export function readKnownFailures(file: string): Set<string> {
  return parseKnownFailures(readFileSync(file, "utf8"), file);
}
