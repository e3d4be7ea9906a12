import type { AllowedRosterField } from "./allowlist.ts";

/** The value type of each roster field. */
interface RosterFieldTypes {
  id: string;
  createdAt: string;
  salutation: string;
  teamBriefing: string | null;
}

/**
 * The consented roster entry of one member. Its keys are the allowlist's keys by
 * construction: a field added to the allowlist without a type here fails to compile, and a
 * type added here without an allowlist entry never becomes a key.
 */
export type RosterMember = { readonly [Field in AllowedRosterField]: RosterFieldTypes[Field] };

/**
 * A member joined with its user, as the backend reads it from the database. Besides the
 * roster columns it may hold anything (email, display name, phone, address, ...);
 * `toRosterMember` reads none of that.
 */
export interface MemberUserRow {
  readonly id: string;
  /** RFC 3339 text, read as text from the database: a `Date` would lose sub-millisecond digits. */
  readonly createdAt: string;
  readonly salutation: string;
  readonly teamBriefing?: string | null | undefined;
  readonly [column: string]: unknown;
}

export type RosterRowErrorCode = "invalid_row" | "missing_column" | "invalid_column";

/**
 * A row that cannot be projected. Names the column and what is wrong with it, never the
 * column's value (it may be personal data).
 */
export class RosterRowError extends Error {
  readonly code: RosterRowErrorCode;
  /** The roster column at fault, or `null` when the row itself is not an object. */
  readonly column: AllowedRosterField | null;

  constructor(code: RosterRowErrorCode, column: AllowedRosterField | null, message: string) {
    super(message);
    this.name = "RosterRowError";
    this.code = code;
    this.column = column;
  }
}

/**
 * Projects a full member+user row into its consented roster entry. Every field is taken
 * explicitly, by name; nothing is copied wholesale, so a column added to the row (or to the
 * query) can never reach CLAUDE.md without a change here and in the allowlist.
 *
 * Checks only the JSON types the render state needs; content rules (lengths, characters,
 * the timestamp grammar) are checked when the render state is parsed.
 *
 * @throws {RosterRowError} when the row is not an object or a roster column is absent or of
 *   the wrong type.
 */
export function toRosterMember(row: MemberUserRow): RosterMember {
  const source: unknown = row;
  if (typeof source !== "object" || source === null || Array.isArray(source)) {
    throw new RosterRowError(
      "invalid_row",
      null,
      "a member row must be an object with the roster columns",
    );
  }
  return {
    id: requiredText(row, "id"),
    createdAt: requiredText(row, "createdAt"),
    salutation: requiredText(row, "salutation"),
    teamBriefing: optionalText(row, "teamBriefing"),
  };
}

function requiredText(row: MemberUserRow, column: "id" | "createdAt" | "salutation"): string {
  if (!Object.hasOwn(row, column)) {
    throw new RosterRowError(
      "missing_column",
      column,
      `the member row has no "${column}" column; select it in the query`,
    );
  }
  const value: unknown = row[column];
  if (typeof value !== "string") {
    throw new RosterRowError(
      "invalid_column",
      column,
      `the member row's "${column}" column must be text`,
    );
  }
  return value;
}

function optionalText(row: MemberUserRow, column: "teamBriefing"): string | null {
  const value: unknown = Object.hasOwn(row, column) ? row[column] : undefined;
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") {
    throw new RosterRowError(
      "invalid_column",
      column,
      `the member row's "${column}" column must be text or null`,
    );
  }
  return value;
}
