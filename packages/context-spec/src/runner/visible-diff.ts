// A unified diff in which nothing can hide: spaces, tabs and line ends are drawn, characters
// that look like nothing (U+00A0, combining marks, RTL marks, controls) are spelled out as
// <U+XXXX>, and where a removed line and an added line differ, every non-ASCII character
// inside the differing stretch is spelled out too (so "á" against "a" + U+0301, or a Cyrillic
// "а" against a Latin "a", shows). Everything else keeps its letters readable.

import { diffArrays, structuredPatch } from "diff";
import { codePoints } from "../interpreter/unicode.ts";

export const DIFF_LEGEND =
  "legend: · space, → tab, ⏎ line feed, <U+XXXX> a character that could hide " +
  "(inside a changed stretch: every non-ASCII character)";

type Mode = "changed" | "context";

const READABLE = /^[\p{L}\p{N}\p{P}\p{S}]$/u;
const OWN_MARKERS = new Set(["·", "→", "⏎"]);

export function visibleText(text: string, mode: Mode): string {
  let visible = "";
  for (const char of text) visible += visibleChar(char, mode);
  return visible;
}

function visibleChar(char: string, mode: Mode): string {
  if (char === " ") return "·";
  if (char === "\t") return "→";
  if (char === "\n") return "⏎";
  const code = char.codePointAt(0) ?? 0;
  if (code > 0x20 && code < 0x7f) return char;
  if (mode === "context" && code >= 0x80 && READABLE.test(char) && !OWN_MARKERS.has(char))
    return char;
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/** Lines with their terminators; a last line without "\n" stays without. */
function linesOf(text: string): string[] {
  return text.split(/(?<=\n)/u).filter((line) => line !== "");
}

/** The diff from want to got as printable lines; empty when both are equal. */
export function visibleDiff(want: string, got: string, context = 3): string[] {
  if (want === got) return [];
  const wantLines = linesOf(want);
  const gotLines = linesOf(got);
  // Diff on the fully spelled-out form, so lines that only look alike never count as equal.
  const token = (lines: string[]): string =>
    lines.map((line) => `${visibleText(line, "changed")}\n`).join("");
  const patch = structuredPatch(
    "want",
    "got",
    token(wantLines),
    token(gotLines),
    undefined,
    undefined,
    { context },
  );
  const out = ["--- want", "+++ got"];
  for (const hunk of patch.hunks) {
    out.push(
      `@@ -${String(hunk.oldStart)},${String(hunk.oldLines)} +${String(hunk.newStart)},${String(hunk.newLines)} @@`,
    );
    let oldIndex = hunk.oldStart - 1;
    let newIndex = hunk.newStart - 1;
    let removed: string[] = [];
    let added: string[] = [];
    const flush = (): void => {
      out.push(...changedBlock(removed, added));
      removed = [];
      added = [];
    };
    for (const line of hunk.lines) {
      const sign = line[0];
      if (sign === "-") removed.push(wantLines[oldIndex++] ?? "");
      else if (sign === "+") added.push(gotLines[newIndex++] ?? "");
      else if (sign === " ") {
        flush();
        out.push(` ${visibleText(wantLines[oldIndex] ?? "", "context")}`);
        oldIndex++;
        newIndex++;
      }
    }
    flush();
  }
  return out;
}

/** Removed then added lines; the i-th removed line is compared with the i-th added one. */
function changedBlock(removed: readonly string[], added: readonly string[]): string[] {
  const pairs = Math.min(removed.length, added.length);
  const marked = Array.from({ length: pairs }, (_, index) =>
    markDifferences(removed[index] ?? "", added[index] ?? ""),
  );
  return [
    ...removed.map((line, index) => `-${marked[index]?.old ?? visibleText(line, "context")}`),
    ...added.map((line, index) => `+${marked[index]?.got ?? visibleText(line, "context")}`),
  ];
}

function markDifferences(oldLine: string, newLine: string): { old: string; got: string } {
  let old = "";
  let got = "";
  for (const part of diffArrays(codePoints(oldLine), codePoints(newLine))) {
    const text = part.value.join("");
    const mode = part.added || part.removed ? "changed" : "context";
    if (!part.added) old += visibleText(text, mode);
    if (!part.removed) got += visibleText(text, mode);
  }
  return { old, got };
}
