/**
 * Makes white space and invisible characters visible, for reading context files exactly as
 * written: a trailing space, a tab, a missing final newline, a zero-width or bidi control
 * character all change the bytes Claude Code gets, and none shows in plain text.
 */

/** One piece of visible text: either the character itself or a marker standing for it. */
export interface Piece {
  readonly text: string;
  /** The marker's description for screen readers and tooltips; null for ordinary text. */
  readonly label: string | null;
}

const NAMED: Readonly<Record<string, string>> = {
  " ": "space",
  "\t": "tab",
  "\n": "line feed",
  "\r": "carriage return",
  "\u00a0": "no-break space",
  "\u200b": "zero width space",
  "\u200c": "zero width non-joiner",
  "\u200d": "zero width joiner",
  "\u2060": "word joiner",
  "\ufeff": "byte order mark",
  "\u00ad": "soft hyphen",
};

const SYMBOL: Readonly<Record<string, string>> = { " ": "·", "\t": "→", "\n": "↵", "\r": "␍" };

/** Characters that print nothing visible: controls, format characters (Cf), separators. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}]/u;

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

export function isInvisible(char: string): boolean {
  return INVISIBLE.test(char);
}

/**
 * The text split into ordinary runs and one marker per invisible character. A line feed's
 * marker keeps the line break after it, so lines stay lines; joining every piece's `raw`
 * gives back the input.
 */
export function revealInvisible(text: string): Array<Piece & { readonly raw: string }> {
  const pieces: Array<Piece & { raw: string }> = [];
  let run = "";
  for (const char of text) {
    if (!isInvisible(char)) {
      run += char;
      continue;
    }
    if (run !== "") pieces.push({ text: run, label: null, raw: run });
    run = "";
    const label = NAMED[char] ?? codePoint(char);
    const symbol = SYMBOL[char] ?? `⟨${codePoint(char)}⟩`;
    pieces.push({ text: char === "\n" ? `${symbol}\n` : symbol, label, raw: char });
  }
  if (run !== "") pieces.push({ text: run, label: null, raw: run });
  return pieces;
}

/** Bytes as the file holds them (UTF-8). */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}
