import { toNfc } from "@talkide/context-spec/unicode";
import type { RawMember, RawProject } from "./arbitraries.ts";
import { trimUnicode } from "./arbitraries.ts";

/**
 * What the spec says a valid input renders as, restated for properties in the fewest words:
 * the properties compare the renderer against these, not against itself.
 */

const DEFAULTS = {
  backendLanguage: "Kotlin",
  backendFramework: "Spring Boot",
  frontendLanguage: "TypeScript",
  frontendFramework: "Vue.js",
} as const;

/**
 * The escaped form: n backslashes and an `@` or a `<` become 2n + 1 backslashes and that
 * character (no import, no tag of the runtime's wrapper).
 */
export function expectedImportSafe(value: string): string {
  return value.replace(/(\\*)([@<])/gu, "$1$1\\$2");
}

/** The salutation starts a line: its `:` is escaped too (no forged header line). */
export function expectedSalutation(value: string): string {
  return trimUnicode(toNfc(value)).replace(/(\\*)([@<:])/gu, "$1$1\\$2");
}

export function expectedLine(value: string): string {
  return expectedImportSafe(trimUnicode(toNfc(value)));
}

export function expectedOptional(value: string | null | undefined, collapse: boolean): string {
  if (value === null || value === undefined) return "—";
  const nfc = toNfc(value);
  const text = trimUnicode(collapse ? nfc.replace(/\p{White_Space}+/gu, " ") : nfc);
  return text === "" ? "—" : expectedImportSafe(text);
}

export function expectedTech(project: RawProject, field: keyof typeof DEFAULTS): string {
  const value = project[field];
  return value === undefined ? DEFAULTS[field] : expectedLine(value);
}

/** The quoted lines of a member's briefing, `> —` when it is blank. */
export function expectedQuotedLines(member: RawMember): string[] {
  const briefing = member.teamBriefing;
  if (briefing === null || briefing === undefined) return ["> —"];
  const lines = toNfc(briefing)
    .split(/\r\n|\r|\n|\u0085|\u2028|\u2029/u)
    .map((line) => line.replace(/\p{White_Space}+$/u, ""));
  while (lines[0] === "") lines.shift();
  while (lines.at(-1) === "") lines.pop();
  return lines.length === 0
    ? ["> —"]
    : lines.map((line) => (line === "" ? ">" : `> ${expectedImportSafe(line)}`));
}
