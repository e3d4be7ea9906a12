import { toLowerCaseDefault, toNfc } from "@talkide/context-spec/unicode";
import { fc } from "@fast-check/vitest";

/**
 * Generators of render states as JSON documents, valid by construction, with every kind of
 * text the normalization has to handle: NFD input, characters above U+FFFF, right-to-left
 * marks, Markdown syntax, white space of every Unicode kind at the ends.
 */

export interface RawMember {
  id: string;
  createdAt: string;
  salutation: string;
  teamBriefing?: string | null;
}

export interface RawProject {
  id: number;
  name: string;
  url?: string | null;
  description?: string | null;
  backendLanguage?: string;
  backendFramework?: string;
  frontendLanguage?: string;
  frontendFramework?: string;
}

export interface RawState {
  project: RawProject;
  team: RawMember[];
  activeMemberId: string;
}

/** The code points of `text`, one string each. */
function characters(text: string): string[] {
  return Array.from(text);
}

/** Characters that may stand anywhere in a line, Markdown and bidi trouble included. */
const LINE_CHARS = [
  ...characters("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
  ...characters("áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ"),
  ...characters(".,;:!?-_/()[]{}*`#>|<&'=+~^%$@\\"),
  "—",
  "e\u0301", // NFD é: NFC turns it into one character
  "\u1100\u1161", // Hangul jamo: NFC composes them
  "😀",
  "𝔘",
  "漢",
  "م",
  "\u200f", // RIGHT-TO-LEFT MARK
  "\u202e", // RIGHT-TO-LEFT OVERRIDE
  "\u200d",
  "\ufeff", // not White_Space: stays
  "\ue000",
  "\uffff",
];
const LETTERS = [
  ...characters("abcxyzABCXYZáčřžÁŘŽ"),
  "ß",
  "ǅ",
  "İ",
  "Σ",
  "Ж",
  "漢",
  "م",
  "𝔘",
  "Ꭰ",
];
/** White space that is neither a line break nor a control character: may stand inside a line. */
const INLINE_SPACES = [" ", "\u00a0", "\u2003", "\u3000", "\u202f", "\u1680"];
/** White space that is not a line break (tab is a control: only at the ends of a single line). */
const SPACES = ["\t", ...INLINE_SPACES];
/** Line breaks of every Unicode kind (VT and FF are controls in a briefing: not here). */
const LINE_BREAKS = ["\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029"];

const lineCharArb = fc.constantFrom(...LINE_CHARS);
const spaceArb = fc.constantFrom(...SPACES);
const inlineSpaceArb = fc.constantFrom(...INLINE_SPACES);
const paddingArb = fc
  .array(fc.constantFrom(...SPACES, ...LINE_BREAKS), { maxLength: 3 })
  .map((parts) => parts.join(""));

function textOf(parts: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string> {
  return fc.array(parts, { maxLength }).map((chars) => chars.join(""));
}

/** A single line whose first and last characters are not white space (before padding). */
function coreLineArb(first: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      first,
      textOf(
        fc.oneof({ weight: 4, arbitrary: lineCharArb }, { weight: 1, arbitrary: inlineSpaceArb }),
        maxLength,
      ),
      lineCharArb,
    )
    .map(([head, middle, tail]) => head + middle + tail);
}

/** A value of a single-line field as a user might send it: padded with white space and line feeds. */
export function singleLineArb(maxLength = 12): fc.Arbitrary<string> {
  return fc
    .tuple(paddingArb, fc.oneof(lineCharArb, coreLineArb(lineCharArb, maxLength)), paddingArb)
    .map((p) => p.join(""));
}

export const salutationArb: fc.Arbitrary<string> = fc
  .tuple(
    paddingArb,
    fc.constantFrom(...LETTERS),
    textOf(
      fc.oneof({ weight: 5, arbitrary: lineCharArb }, { weight: 1, arbitrary: inlineSpaceArb }),
      10,
    ),
    paddingArb,
  )
  .map(([before, letter, rest, after]) => before + letter + rest.trimEnd() + after);

/** Blank values: what must render as the em-dash in url, description and teamBriefing. */
export const blankArb: fc.Arbitrary<string> = textOf(fc.constantFrom(...SPACES, ...LINE_BREAKS), 6);

export const urlArb: fc.Arbitrary<string | null | undefined> = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  blankArb,
  fc
    .tuple(
      paddingArb,
      fc.constantFrom("http://", "https://", "HTTPS://", "Http://"),
      fc.constantFrom(
        "example.com",
        "localhost:8097",
        "user@host",
        "[::1]",
        "xn--pekrna-wua.cz",
        "pekárna.cz",
      ),
      fc.constantFrom("", "/", "/a/b?c=d#e", "?q=1", "#top", "/cesta/č"),
      paddingArb,
    )
    .map((parts) => parts.join("")),
);

export const descriptionArb: fc.Arbitrary<string | null | undefined> = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  blankArb,
  textOf(
    fc.oneof({ weight: 5, arbitrary: lineCharArb }, fc.constantFrom(...SPACES, ...LINE_BREAKS)),
    40,
  ),
);

/** A briefing line: any line characters, leading white space, trailing white space to strip. */
const briefingLineArb = fc
  .tuple(
    textOf(spaceArb, 2),
    textOf(fc.oneof({ weight: 5, arbitrary: lineCharArb }, { weight: 1, arbitrary: spaceArb }), 16),
    textOf(spaceArb, 2),
  )
  .map((parts) => parts.join(""));

export const briefingArb: fc.Arbitrary<string | null | undefined> = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  blankArb,
  fc
    .tuple(
      fc.array(briefingLineArb, { minLength: 1, maxLength: 8 }),
      fc.array(fc.constantFrom(...LINE_BREAKS), { minLength: 8, maxLength: 8 }),
    )
    .map(([lines, breaks]) =>
      lines.map((line, i) => (i === 0 ? line : (breaks[i] ?? "\n") + line)).join(""),
    ),
);

/** A tech-stack field: absent (the default) or a value; never one that trims to the em-dash. */
export const techArb: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  singleLineArb(8).filter((value) => trimUnicode(value) !== "—"),
);

/**
 * An exact instant and one of its many spellings. Members that share an instant (spelled
 * differently, e.g. `Z` and `+02:00`, `.5` and `.500`) are common, so ties are exercised.
 */
export interface GeneratedTimestamp {
  readonly text: string;
  readonly epochSeconds: number;
  readonly nanoseconds: number;
}

const MIN_SECONDS = -62_135_596_800 + 86_400 * 2; // 0001-01-03T00:00:00Z: room for any offset
const MAX_SECONDS = 253_402_300_799 - 86_400 * 2; // 9999-12-29T23:59:59Z

const instantArb = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(1_777_732_331, 1_777_732_332, 0, -1) },
  { weight: 2, arbitrary: fc.integer({ min: MIN_SECONDS, max: MAX_SECONDS }) },
);
const nanosArb = fc.oneof(
  fc.constantFrom(0, 500_000_000),
  fc.integer({ min: 0, max: 999_999_999 }),
);

export const timestampArb: fc.Arbitrary<GeneratedTimestamp> = fc
  .tuple(
    instantArb,
    nanosArb,
    fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
    fc.boolean(),
    fc.integer({ min: 0, max: 3 }),
  )
  .map(([epochSeconds, nanoseconds, offsetMinutes, zulu, extraDigits]) => ({
    text: formatTimestamp(epochSeconds, nanoseconds, zulu ? null : offsetMinutes, extraDigits),
    epochSeconds,
    nanoseconds,
  }));

/** Spells an instant in RFC 3339, with a given offset (null: `Z`). Test-only, so Date is fine. */
function formatTimestamp(
  epochSeconds: number,
  nanoseconds: number,
  offsetMinutes: number | null,
  extraDigits: number,
): string {
  const local = new Date((epochSeconds + (offsetMinutes ?? 0) * 60) * 1000);
  const pad = (value: number, width: number): string => String(value).padStart(width, "0");
  let fraction = pad(nanoseconds, 9).replace(/0+$/, "");
  if (fraction !== "" || extraDigits > 0)
    fraction = `.${(fraction || "0").padEnd(Math.min(9, fraction.length + extraDigits), "0")}`;
  let offset = "Z";
  if (offsetMinutes !== null) {
    const magnitude = Math.abs(offsetMinutes);
    offset = `${offsetMinutes < 0 ? "-" : "+"}${pad(Math.floor(magnitude / 60), 2)}:${pad(magnitude % 60, 2)}`;
  }
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}` +
    `T${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}${fraction}${offset}`
  );
}

/** Member ids: opaque strings, with characters on both sides of the UTF-16/code-point trap. */
export const idArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "m1",
    "m2",
    "m10",
    "a",
    "A",
    "\ue000",
    "😀",
    "\uffff",
    "𝔘",
    " m1",
    "e\u0301",
    "é",
  ),
  fc
    .array(
      fc.constantFrom("m", "1", "2", "-", " ", "\ue000", "\uffff", "😀", "é", "e\u0301", "\u200f"),
      { minLength: 1, maxLength: 5 },
    )
    .map((chars) => chars.join("")),
);

export interface GeneratedState {
  readonly state: RawState;
  /** The instant of each member, by index in `state.team`. */
  readonly instants: ReadonlyArray<GeneratedTimestamp>;
}

/** A valid render state of `minMembers`–`maxMembers` members. */
export function validStateArb(
  options: { minMembers?: number; maxMembers?: number } = {},
): fc.Arbitrary<GeneratedState> {
  const { minMembers = 1, maxMembers = 6 } = options;
  const membersArb = fc.integer({ min: minMembers, max: maxMembers }).chain((count) =>
    fc.tuple(
      fc.uniqueArray(idArb, {
        minLength: count,
        maxLength: count,
        selector: (id) => toNfc(id),
      }),
      fc.uniqueArray(salutationArb, {
        minLength: count,
        maxLength: count,
        selector: (salutation) => toLowerCaseDefault(trimUnicode(toNfc(salutation))),
      }),
      fc.array(fc.tuple(timestampArb, briefingArb), { minLength: count, maxLength: count }),
      fc.nat(count - 1),
    ),
  );
  return fc
    .record({
      id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      name: singleLineArb(20),
      url: urlArb,
      description: descriptionArb,
      backendLanguage: techArb,
      backendFramework: techArb,
      frontendLanguage: techArb,
      frontendFramework: techArb,
      members: membersArb,
    })
    .map(({ members: [ids, salutations, details, active], ...project }) => {
      const team = ids.map((id, i): RawMember => {
        const [timestamp, briefing] = details[i] ?? [];
        const member: RawMember = {
          id,
          createdAt: timestamp?.text ?? "",
          salutation: salutations[i] ?? "",
        };
        if (briefing !== undefined) member.teamBriefing = briefing;
        return member;
      });
      return {
        state: { project: withoutUndefined(project), team, activeMemberId: ids[active] ?? "" },
        instants: details.map(([timestamp]) => timestamp),
      };
    });
}

function withoutUndefined(project: Record<string, unknown>): RawProject {
  return Object.fromEntries(
    Object.entries(project).filter(([, value]) => value !== undefined),
  ) as unknown as RawProject;
}

export function trimUnicode(text: string): string {
  return text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");
}

/** A copy of `value` with the keys of every object in an order drawn from `order`. */
export function shuffleKeysDeep(value: unknown, order: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffleKeysDeep(item, order));
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).map(
    ([key, item]) => [key, shuffleKeysDeep(item, order)] as const,
  );
  const keyed = entries.map((entry) => ({ entry, rank: order() }));
  keyed.sort((a, b) => a.rank - b.rank);
  return Object.fromEntries(keyed.map(({ entry }) => entry));
}
