// Validation and normalization of a CLAUDE.md render state, written from the prose of
// spec/claude-md.md ("Input document", "Normalization and validation", "Errors") and
// independent of @talkide/renderer on purpose: two readings of one text must agree.

import { startsWithUnicode13Letter, toLowerCaseDefault, toNfc } from "../unicode/unicode-13.ts";
import { escaped, escapedLineStart, escapedOrNull } from "./escape.ts";
import { type Instant, parseInstant } from "./instant.ts";
import { elementPath, keyPath } from "./state-path.ts";
import {
  codePointLength,
  collapseWhiteSpace,
  hasControlCharacter,
  hasLineOrParagraphSeparator,
  hasUnpairedSurrogate,
  stripTrailingWhiteSpace,
  trimWhiteSpace,
} from "./unicode.ts";

export type StateErrorCode =
  | "forbidden_field"
  | "unknown_field"
  | "missing_field"
  | "invalid_field"
  | "duplicate_member"
  | "unknown_active_member"
  | "empty_team";

export interface StateError {
  readonly code: StateErrorCode;
  readonly path: string;
}

export interface ClaudeMdMember {
  readonly id: string;
  readonly createdAt: Instant;
  readonly salutation: string;
  readonly teamBriefing: string | null;
}

/** The render context of the template: normalized values, blanks as null. */
export interface ClaudeMdContext {
  readonly project: {
    readonly name: string;
    readonly url: string | null;
    readonly description: string | null;
    readonly backendLanguage: string;
    readonly backendFramework: string;
    readonly frontendLanguage: string;
    readonly frontendFramework: string;
  };
  readonly team: readonly ClaudeMdMember[];
  readonly activeMember: ClaudeMdMember;
}

export type StateResult =
  | { readonly ok: true; readonly context: ClaudeMdContext }
  | { readonly ok: false; readonly error: StateError };

const TOP_LEVEL_KEYS = ["project", "team", "activeMemberId"];
const PROJECT_KEYS = ["id", "name", "url", "description", ...techFieldNames()];
const MEMBER_KEYS = ["id", "createdAt", "salutation", "teamBriefing"];
const TECH_DEFAULTS = {
  backendLanguage: "Kotlin",
  backendFramework: "Spring Boot",
  frontendLanguage: "TypeScript",
  frontendFramework: "Vue.js",
} as const;
const MAX_TEAM = 50;
const EM_DASH = "\u2014";
const BRIEFING_LINE_BREAK = /\r\n|[\r\u0085\u2028\u2029]/gu;
const BRIEFING_ALLOWED_CONTROLS: ReadonlySet<string> = new Set(["\t", "\n"]);

function techFieldNames(): (keyof typeof TECH_DEFAULTS)[] {
  return ["backendLanguage", "backendFramework", "frontendLanguage", "frontendFramework"];
}

class StateFault extends Error {
  readonly code: StateErrorCode;
  readonly path: string;
  constructor(code: StateErrorCode, path: string) {
    super(`${code} at ${path === "" ? "the document" : path}`);
    this.code = code;
    this.path = path;
  }
}

/** Reads the bytes of a state.json (runner protocol input) and validates it. */
export function readClaudeMdState(bytes: Uint8Array): StateResult {
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, error: { code: "invalid_field", path: "" } };
  }
  return normalizeClaudeMdState(document);
}

export function normalizeClaudeMdState(document: unknown): StateResult {
  try {
    return { ok: true, context: normalizeDocument(document) };
  } catch (fault) {
    if (fault instanceof StateFault)
      return { ok: false, error: { code: fault.code, path: fault.path } };
    throw fault;
  }
}

function normalizeDocument(document: unknown): ClaudeMdContext {
  const root = asObject(document, "");
  rejectKeysOutside(root, "", TOP_LEVEL_KEYS, "unknown_field");
  const project = normalizeProject(required(root, "", "project"));
  const team = normalizeTeam(required(root, "", "team"));
  const activeIdValue = required(root, "", "activeMemberId");
  const activeMemberId = text(activeIdValue, "activeMemberId");
  if (!team.some((member) => member.id === activeMemberId))
    throw new StateFault("unknown_active_member", "activeMemberId");
  return escapedContext(project, team, activeMemberId);
}

/** The last step, after every check: user values in their escaped form. */
function escapedContext(
  project: ClaudeMdContext["project"],
  team: readonly ClaudeMdMember[],
  activeMemberId: string,
): ClaudeMdContext {
  const safeTeam = team.map((member) => ({
    ...member,
    salutation: escapedLineStart(member.salutation),
    teamBriefing: escapedOrNull(member.teamBriefing),
  }));
  const activeMember = safeTeam.find((member) => member.id === activeMemberId);
  if (activeMember === undefined) throw new StateFault("unknown_active_member", "activeMemberId");
  return {
    project: {
      name: escaped(project.name),
      url: escapedOrNull(project.url),
      description: escapedOrNull(project.description),
      backendLanguage: escaped(project.backendLanguage),
      backendFramework: escaped(project.backendFramework),
      frontendLanguage: escaped(project.frontendLanguage),
      frontendFramework: escaped(project.frontendFramework),
    },
    team: safeTeam,
    activeMember,
  };
}

function normalizeProject(value: unknown): ClaudeMdContext["project"] {
  const project = asObject(value, "project");
  rejectKeysOutside(project, "project", PROJECT_KEYS, "unknown_field");
  const id = required(project, "project", "id");
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1)
    throw new StateFault("invalid_field", "project.id");
  const name = singleLine(required(project, "project", "name"), "project.name", 200);
  const tech = Object.fromEntries(
    techFieldNames().map((field) => [field, techField(project, field)]),
  ) as Record<keyof typeof TECH_DEFAULTS, string>;
  return {
    name,
    url: url(project["url"]),
    description: description(project["description"]),
    backendLanguage: tech.backendLanguage,
    backendFramework: tech.backendFramework,
    frontendLanguage: tech.frontendLanguage,
    frontendFramework: tech.frontendFramework,
  };
}

function url(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const path = "project.url";
  const trimmed = trimWhiteSpace(lengthChecked(value, path, 2048));
  if (trimmed === "") return null;
  checkSingleLine(trimmed, path);
  const scheme = /^https?:\/\//iu.exec(trimmed);
  const authority =
    scheme === null ? "" : (/^[^/?#]*/u.exec(trimmed.slice(scheme[0].length))?.[0] ?? "");
  if (authority === "" || /\p{White_Space}/u.test(trimmed))
    throw new StateFault("invalid_field", path);
  return trimmed;
}

function description(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const path = "project.description";
  const collapsed = trimWhiteSpace(collapseWhiteSpace(lengthChecked(value, path, 2000)));
  if (hasControlCharacter(collapsed)) throw new StateFault("invalid_field", path);
  return collapsed === "" ? null : collapsed;
}

function techField(
  project: Readonly<Record<string, unknown>>,
  field: keyof typeof TECH_DEFAULTS,
): string {
  if (!Object.hasOwn(project, field)) return TECH_DEFAULTS[field];
  const path = keyPath("project", field);
  const value = singleLine(project[field], path, 100);
  if (value === EM_DASH) throw new StateFault("invalid_field", path);
  return value;
}

function normalizeTeam(value: unknown): ClaudeMdMember[] {
  if (!Array.isArray(value)) throw new StateFault("invalid_field", "team");
  const entries = value as unknown[];
  if (entries.length === 0) throw new StateFault("empty_team", "team");
  if (entries.length > MAX_TEAM) throw new StateFault("invalid_field", "team");
  const team = entries.map((entry, index) => normalizeMember(entry, elementPath("team", index)));
  rejectDuplicates(
    team.map((member) => member.id),
    "id",
  );
  rejectDuplicates(
    team.map((member) => toLowerCaseDefault(member.salutation)),
    "salutation",
  );
  return team;
}

function normalizeMember(value: unknown, path: string): ClaudeMdMember {
  const member = asObject(value, path);
  // Privacy first: a key that is not on the allowlist is reported before anything else.
  rejectKeysOutside(member, path, MEMBER_KEYS, "forbidden_field");
  const id = text(required(member, path, "id"), keyPath(path, "id"));
  if (id === "") throw new StateFault("invalid_field", keyPath(path, "id"));
  const createdAtPath = keyPath(path, "createdAt");
  const createdAt = parseInstant(text(required(member, path, "createdAt"), createdAtPath));
  if (createdAt === null) throw new StateFault("invalid_field", createdAtPath);
  const salutationPath = keyPath(path, "salutation");
  const salutation = singleLine(required(member, path, "salutation"), salutationPath, 64);
  if (!startsWithUnicode13Letter(salutation) || salutation.includes('"'))
    throw new StateFault("invalid_field", salutationPath);
  return {
    id,
    createdAt,
    salutation,
    teamBriefing: briefing(member["teamBriefing"], keyPath(path, "teamBriefing")),
  };
}

function briefing(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  const unified = lengthChecked(value, path, 8000).replace(BRIEFING_LINE_BREAK, "\n");
  if (hasControlCharacter(unified, BRIEFING_ALLOWED_CONTROLS))
    throw new StateFault("invalid_field", path);
  const lines = unified.split("\n").map(stripTrailingWhiteSpace);
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start] === "") start++;
  while (end > start && lines[end - 1] === "") end--;
  return start === end ? null : lines.slice(start, end).join("\n");
}

function rejectDuplicates(keys: readonly string[], field: "id" | "salutation"): void {
  const seen = new Set<string>();
  keys.forEach((key, index) => {
    if (seen.has(key))
      throw new StateFault("duplicate_member", keyPath(elementPath("team", index), field));
    seen.add(key);
  });
}

/** A string value in NFC; an unpaired surrogate cannot become UTF-8 and is refused. */
function text(value: unknown, path: string): string {
  if (typeof value !== "string" || hasUnpairedSurrogate(value))
    throw new StateFault("invalid_field", path);
  return toNfc(value);
}

function lengthChecked(value: unknown, path: string, max: number): string {
  const normalized = text(value, path);
  if (codePointLength(normalized) > max) throw new StateFault("invalid_field", path);
  return normalized;
}

function singleLine(value: unknown, path: string, max: number): string {
  const trimmed = trimWhiteSpace(lengthChecked(value, path, max));
  if (trimmed === "") throw new StateFault("invalid_field", path);
  checkSingleLine(trimmed, path);
  return trimmed;
}

function checkSingleLine(value: string, path: string): void {
  if (hasControlCharacter(value) || hasLineOrParagraphSeparator(value))
    throw new StateFault("invalid_field", path);
}

function asObject(value: unknown, path: string): Readonly<Record<string, unknown>> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new StateFault("invalid_field", path);
  return value as Record<string, unknown>;
}

function required(object: Readonly<Record<string, unknown>>, parent: string, key: string): unknown {
  if (!Object.hasOwn(object, key)) throw new StateFault("missing_field", keyPath(parent, key));
  return object[key];
}

function rejectKeysOutside(
  object: Readonly<Record<string, unknown>>,
  parent: string,
  allowed: readonly string[],
  code: "unknown_field" | "forbidden_field",
): void {
  const extra = Object.keys(object).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw new StateFault(code, keyPath(parent, extra));
}
