// The writer split of spec/claude-md.md ("Split form"): the single file is cut before the
// active-writer section, which moves to .talkide/active-writer.md behind an import line.

import { TemplateError } from "./template.ts";

export const SPLIT_FILES = ["CLAUDE.md", ".talkide/active-writer.md"] as const;
export type SplitFile = (typeof SPLIT_FILES)[number];

const ACTIVE_WRITER_SECTION = "\n\n# Aktuálně píše\n";
const IMPORT_LINE = "@.talkide/active-writer.md\n";

export function isSplitFile(name: string): name is SplitFile {
  return (SPLIT_FILES as readonly string[]).includes(name);
}

export function splitClaudeMd(single: string, file: SplitFile): string {
  const cut = single.lastIndexOf(ACTIVE_WRITER_SECTION);
  if (cut < 0)
    throw new TemplateError(
      "The rendered CLAUDE.md has no '# Aktuálně píše' section to split off.",
    );
  // Up to and including the blank line before the heading.
  const boundary = cut + 2;
  return file === "CLAUDE.md" ? single.slice(0, boundary) + IMPORT_LINE : single.slice(boundary);
}
