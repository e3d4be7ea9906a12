/**
 * Neutralization of user text (contract 4.2): whatever a sender, a group admin or an upstream
 * service writes, it can never close a `[charter]` or `[quote` block early, and it can never
 * start a line that looks like a line the daemon writes (an envelope header, a wake notice, a
 * block opener, a suffix, the group context). The change is a single backslash, so it is
 * visible to the agent and deterministic; the standing prompt tells the agent what it means.
 *
 * Matching is done on a *folded* form of each line, so that look-alikes count too: characters
 * that are white space, invisible or combining (White_Space, general categories Cf and M,
 * Default_Ignorable_Code_Point) are dropped, every other character is replaced by its NFKC form
 * (fullwidth `［` becomes `[`) and lower-cased. `[ /CHARTER ]`, `［/charter］`, `[\u200b/charter]`
 * and `\u0301[target=` all count.
 */

const IGNORABLE = /^[\p{White_Space}\p{Cf}\p{M}\p{Default_Ignorable_Code_Point}]$/u;

/** The character inserted to neutralize; chosen because it is visible and means "literal". */
export const NEUTRALIZING_MARK = "\\";

/** Block closers, matched anywhere in a line (folded). */
export const BLOCK_CLOSERS: readonly string[] = ["[/charter]", "[/quote]"];

/** Folded starts of the lines the wake prompt itself writes; user lines must not look like them. */
export const STRUCTURAL_LINE_STARTS: readonly string[] = [
  "[target=",
  "[task#",
  "[reactions:",
  "[charter]",
  "[quote",
  "newmessagereceived:",
  "groupcontext:",
];

interface FoldedLine {
  /** Folded characters (code points), ignorables removed. */
  readonly folded: readonly string[];
  /** For each folded character, the index of the original code point it came from. */
  readonly origin: readonly number[];
}

/** The code points of a string (not UTF-16 units): every rule here is per code point. */
function codePointsOf(text: string): string[] {
  return Array.from(text);
}

function isIgnorable(codePoint: string): boolean {
  return IGNORABLE.test(codePoint);
}

function foldLine(codePoints: readonly string[]): FoldedLine {
  const folded: string[] = [];
  const origin: number[] = [];
  codePoints.forEach((codePoint, index) => {
    if (isIgnorable(codePoint)) return;
    for (const piece of codePoint.normalize("NFKC").toLowerCase()) {
      if (isIgnorable(piece)) continue;
      folded.push(piece);
      origin.push(index);
    }
  });
  return { folded, origin };
}

const CLOSER_CHARACTERS: readonly (readonly string[])[] = BLOCK_CLOSERS.map(codePointsOf);

function matchesAt(folded: readonly string[], at: number, marker: readonly string[]): boolean {
  return marker.every((character, offset) => folded[at + offset] === character);
}

/** Original indexes of the `/` of every block closer in the line. */
function closerSlashes(codePoints: readonly string[]): Set<number> {
  const { folded, origin } = foldLine(codePoints);
  const slashes = new Set<number>();
  for (let at = 0; at < folded.length; at += 1) {
    for (const closer of CLOSER_CHARACTERS) {
      const slash = origin[at + 1];
      if (slash !== undefined && matchesAt(folded, at, closer)) slashes.add(slash);
    }
  }
  return slashes;
}

function insertMarkBefore(codePoints: readonly string[], indexes: ReadonlySet<number>): string[] {
  return codePoints.flatMap((codePoint, index) =>
    indexes.has(index) ? [NEUTRALIZING_MARK, codePoint] : [codePoint],
  );
}

/**
 * Escapes every block closer of one line by a backslash before its slash: `[/charter]` becomes
 * `[\/charter]`. A closer's slash always starts the NFKC form of its own code point (no
 * compatibility character expands to `[/`), so one pass removes every match and adds none.
 */
function escapeClosers(line: string): string {
  const codePoints = codePointsOf(line);
  const slashes = closerSlashes(codePoints);
  return slashes.size === 0 ? line : insertMarkBefore(codePoints, slashes).join("");
}

/**
 * Neutralizes text that stays on one line of the prompt (a snippet, a title, a group name):
 * only block closers can matter there, because the text never starts a line.
 */
export function neutralizeInline(text: string): string {
  if (text.includes("\n")) throw new TypeError("neutralizeInline takes single-line text");
  return escapeClosers(text);
}

/** Neutralizes one line of multi-line user text: closers anywhere, then a structural start. */
function neutralizeLine(line: string): string {
  const escaped = escapeClosers(line);
  const codePoints = codePointsOf(escaped);
  const { folded, origin } = foldLine(codePoints);
  const foldedText = folded.join("");
  const first = origin[0];
  if (
    first === undefined ||
    !STRUCTURAL_LINE_STARTS.some((start) => foldedText.startsWith(start))
  ) {
    return escaped;
  }
  return insertMarkBefore(codePoints, new Set([first])).join("");
}

/**
 * Neutralizes multi-line user text (lines separated by `\n`, see `toMultiLineText`): every
 * block closer gets a backslash before its slash, and a line whose folded form starts like a
 * structural line gets a backslash before its first visible character.
 */
export function neutralizeMultiLine(text: string): string {
  return text.split("\n").map(neutralizeLine).join("\n");
}
