import { toNfc } from "../unicode/unicode-13.ts";
// The canonical-bytes rules of spec/claude-md.md, checked on a finished CLAUDE.md without
// knowing how it was produced: a second, independent look at every expected.md.

const SECTIONS = [
  "# Projekt",
  "# Infrastructure",
  "# Welcome instrukce",
  "# Tým",
  "# Aktuálně píše",
];

export function canonicalFormProblems(text: string): string[] {
  const problems: string[] = [];
  if (text.startsWith("\uFEFF")) problems.push("starts with a byte order mark");
  if (text.includes("\r")) problems.push("holds a carriage return");
  if (toNfc(text) !== text) problems.push("is not in NFC");
  if (!text.endsWith("\n") || text.endsWith("\n\n"))
    problems.push("does not end with exactly one line feed");
  const lines = text.slice(0, -1).split("\n");
  lines.forEach((line, index) => {
    const number = String(index + 1);
    if (/\p{White_Space}$/u.test(line)) problems.push(`line ${number} ends in white space`);
    const isHeading = line.startsWith("#");
    const previous = lines[index - 1];
    if (isHeading && index > 0 && (previous !== "" || lines[index - 2] === "")) {
      problems.push(`line ${number} is a heading without exactly one blank line before it`);
    }
    if (line === "" && !(lines[index + 1] ?? "").startsWith("#"))
      problems.push(`line ${number} is a blank line not before a heading`);
  });
  const sections = lines.filter((line) => /^# /u.test(line));
  if (JSON.stringify(sections) !== JSON.stringify(SECTIONS))
    problems.push(`top-level sections are ${sections.join(", ")}`);
  return problems;
}
