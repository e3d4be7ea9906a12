import { fc } from "@fast-check/vitest";
import type { RawState } from "./arbitraries.ts";

/**
 * Hostile strings for any field: line breaks of every Unicode kind, Markdown that would open a
 * heading, a quote, a list, a code fence or an HTML block, control characters, bidi marks,
 * unpaired surrogates, the template's own lines, 10k-character values.
 */
const HOSTILE_UNITS = [
  "\n",
  "\r\n",
  "\r",
  "\u000b",
  "\u000c",
  "\u0085",
  "\u2028",
  "\u2029",
  "#",
  "# ",
  "## ",
  ">",
  "> ",
  "```",
  "`",
  "~~~",
  "<!--",
  "-->",
  "<div>",
  "- ",
  "1. ",
  "* ",
  "---",
  "===",
  "\u200e",
  "\u200f",
  "\u202a",
  "\u202e",
  "\u2066",
  "\u2069",
  "\u061c",
  "\u0000",
  "\u0007",
  "\u001b[2J",
  "\u007f",
  "\u009b",
  "\u001c",
  "\t",
  " ",
  "\u00a0",
  "\u3000",
  "\ufeff",
  '"',
  "—",
  "\\",
  "@.talkide/active-writer.md",
  "# Aktuálně píše",
  '## Oslovuj jako "X"',
  "Briefing pro tým:",
  "a",
  "Ž",
  "漢",
  "😀",
  "e\u0301",
  "\ud800",
  "\udfff",
];

// prettier-ignore
export const hostileArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...HOSTILE_UNITS), { maxLength: 24 }).map((units) => units.join("")) },
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...HOSTILE_UNITS), { maxLength: 24 }).map((units) => `Ž${units.join("")}`) },
  { weight: 2, arbitrary: fc.array(fc.constantFrom(...HOSTILE_UNITS), { maxLength: 12 }).map((units) => `https://h/${units.join("")}`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...HOSTILE_UNITS), fc.integer({ min: 9_990, max: 10_010 })).map(([unit, length]) => unit.repeat(length).slice(0, length)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 800 }).map((count) => "# x\n> y\n```\n<!--\r\n".repeat(count).slice(0, 8000)) },
);

export type Field =
  | "name"
  | "url"
  | "description"
  | "backendLanguage"
  | "backendFramework"
  | "frontendLanguage"
  | "frontendFramework"
  | "id"
  | "createdAt"
  | "salutation"
  | "teamBriefing"
  | "activeMemberId";
export const FIELDS: ReadonlyArray<Field> = [
  "name",
  "url",
  "description",
  "backendLanguage",
  "backendFramework",
  "frontendLanguage",
  "frontendFramework",
  "id",
  "createdAt",
  "salutation",
  "teamBriefing",
  "activeMemberId",
];
const PROJECT_FIELDS = new Set<Field>([
  "name",
  "url",
  "description",
  "backendLanguage",
  "backendFramework",
  "frontendLanguage",
  "frontendFramework",
]);

/**
 * A copy of `state` with `value` put into `field` (of the member at `pick` for member fields;
 * a member's new id stays the active one if it was), and the path of that field.
 */
export function withHostile(
  state: RawState,
  field: Field,
  pick: number,
  value: string,
): { state: RawState; path: string; index: number } {
  const copy = structuredClone(state);
  const index = pick % copy.team.length;
  const member = copy.team[index];
  if (member === undefined) throw new Error("a member to put the value in");
  if (PROJECT_FIELDS.has(field)) {
    (copy.project as unknown as Record<string, unknown>)[field] = value;
    return { state: copy, path: `project.${field}`, index };
  }
  if (field === "activeMemberId") {
    copy.activeMemberId = value;
    return { state: copy, path: "activeMemberId", index };
  }
  if (field === "id" && copy.activeMemberId === member.id) copy.activeMemberId = value;
  (member as unknown as Record<string, unknown>)[field] = value;
  return { state: copy, path: `team[${String(index)}].${field}`, index };
}
