import { BRIEFING_LINE, SECTIONS } from "./claude-md-sections.ts";

/**
 * What changed between two renders of one of our instruction files, in a member's words, one
 * phrase per changed section in the order the file has them ("the active writer changed",
 * "the roster section changed", …). A resumed turn sends a changed file again, whole, in a
 * reminder appended to the conversation: the provider's cache keeps everything before it
 * (`prefix_kept`), and these phrases say why the turn wrote what it wrote. `before` null: the
 * file is new (a new session reads it anyway, and says so itself): nothing to name.
 */
export function changedSections(before: string | null, after: string): readonly string[] {
  if (before === null || before === after) return [];
  const old = sectionsOf(before);
  const phrases: string[] = [];
  for (const [heading, body] of sectionsOf(after)) {
    const previous = old.get(heading);
    old.delete(heading);
    if (previous === body) continue;
    const phrase = phraseOf(heading, previous ?? null, body);
    if (phrase !== null && !phrases.includes(phrase)) phrases.push(phrase);
  }
  // A section the new render no longer has (the active writer left, say).
  for (const heading of old.keys()) {
    const phrase = phraseOf(heading, null, null);
    if (phrase !== null && !phrases.includes(phrase)) phrases.push(phrase);
  }
  return phrases;
}

/** The file's top-level sections (`# Heading` lines), each with the lines below it. */
function sectionsOf(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  let heading: string | null = null;
  let lines: string[] = [];
  const flush = (): void => {
    if (heading !== null) sections.set(heading, lines.join("\n"));
  };
  for (const line of text.split("\n")) {
    if (SECTIONS.some(([known]) => known === line)) {
      flush();
      heading = line;
      lines = [];
    } else {
      lines.push(line);
    }
  }
  flush();
  return sections;
}

/** Under `# Tým`, a change only in the quoted briefings is a briefing's change. */
function phraseOf(heading: string, before: string | null, after: string | null): string | null {
  const phrase = SECTIONS.find(([known]) => known === heading)?.[1] ?? null;
  if (heading !== "# Tým" || before === null || after === null) return phrase;
  const roster = (body: string): string =>
    body
      .split("\n")
      .filter((line) => !BRIEFING_LINE.test(line))
      .join("\n");
  return roster(before) === roster(after) ? "a briefing changed" : phrase;
}
