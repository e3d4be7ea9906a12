import { ROSTER_FIELDS } from "@talkide/privacy";

/** The stable error codes of the render state (contract 1.3). */
export const RENDER_STATE_ERROR_CODES = [
  "forbidden_field",
  "unknown_field",
  "missing_field",
  "invalid_field",
  "duplicate_member",
  "unknown_active_member",
  "empty_team",
] as const;

export type RenderStateErrorCode = (typeof RENDER_STATE_ERROR_CODES)[number];

/**
 * Why a render state was refused. `path` names where the fault is (`team[0].email`, `""` for
 * the whole document); `message` says what to do about it. Neither ever repeats the
 * offending value: it may be personal data.
 */
export interface RenderStateError {
  readonly code: RenderStateErrorCode;
  readonly path: string;
  readonly message: string;
}

/**
 * What is wrong with a value, as a fixed phrase. Messages are built only from these phrases
 * and the path, which is how a value can never leak into one.
 */
export type Fault =
  | "not_json"
  | "not_an_object"
  | "not_an_array"
  | "not_a_string"
  | "not_a_string_or_null"
  | "not_a_whole_number"
  | "wrong_type"
  | "out_of_range"
  | "too_long"
  | "blank"
  | "empty"
  | "control_character"
  | "unpaired_surrogate"
  | "not_an_http_url"
  | "em_dash"
  | "not_letter_first"
  | "double_quote"
  | "not_a_timestamp"
  | "too_many_members";

const FAULT_TEXT: Readonly<Record<Fault, string>> = {
  not_json: "is not a JSON document; send exactly one JSON object, encoded as UTF-8",
  not_an_object: "must be a JSON object",
  not_an_array: "must be a JSON array",
  not_a_string: "must be a string",
  not_a_string_or_null: "must be a string or null",
  not_a_whole_number: "must be a whole number",
  wrong_type: "has the wrong JSON type",
  out_of_range: "must be a whole number from 1 to 9007199254740991",
  too_long: "is too long",
  blank: "must not be blank",
  empty: "must hold at least one character",
  control_character: "holds a control character or a line break where none is allowed",
  unpaired_surrogate: "holds an unpaired UTF-16 surrogate, which cannot be written as UTF-8",
  not_an_http_url: "must be an absolute http:// or https:// URL without white space, or null",
  em_dash:
    'must not be "—": the tech stack never shows the em-dash; leave the key out for the default',
  not_letter_first: "must start with a letter",
  double_quote: 'must not contain a double quote (")',
  not_a_timestamp: "must be an RFC 3339 timestamp with an offset, e.g. 2026-05-02T14:32:11.5Z",
  too_many_members: "must hold at most 50 members",
};

/** `limit`, for `too_long`: the most characters (code points, after NFC) the field may hold. */
export function invalidField(path: string, fault: Fault, limit?: number): RenderStateError {
  const text =
    fault === "too_long" && limit !== undefined
      ? `is longer than ${limit} characters`
      : FAULT_TEXT[fault];
  return { code: "invalid_field", path, message: `${describe(path)} ${text}` };
}

export function forbiddenField(path: string): RenderStateError {
  return {
    code: "forbidden_field",
    path,
    message: `${describe(path)} is not on the privacy allowlist of the roster; remove it (a member may only have ${ROSTER_FIELDS.join(", ")})`,
  };
}

export function unknownField(path: string): RenderStateError {
  return {
    code: "unknown_field",
    path,
    message: `${describe(path)} is not a field of the render state; remove it`,
  };
}

export function missingField(path: string): RenderStateError {
  return { code: "missing_field", path, message: `${describe(path)} is required` };
}

export function duplicateMember(path: string): RenderStateError {
  const what = path.endsWith(".id") ? "id" : "salutation (compared ignoring case)";
  return {
    code: "duplicate_member",
    path,
    message: `${describe(path)} repeats the ${what} of an earlier member; every member needs their own`,
  };
}

export function unknownActiveMember(path: string): RenderStateError {
  return {
    code: "unknown_active_member",
    path,
    message: `${describe(path)} names no member of the team; use the id of the member who is writing`,
  };
}

export function emptyTeam(path: string): RenderStateError {
  return {
    code: "empty_team",
    path,
    message: `${describe(path)} is empty; a project always has at least one member`,
  };
}

function describe(path: string): string {
  return path === "" ? "the render state" : path;
}
