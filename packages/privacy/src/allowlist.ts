/**
 * The consent allowlist of the team roster: the only member fields that may reach the model
 * provider through CLAUDE.md, each with the consent that allows it and what it is for.
 *
 * Adding a roster field means adding an entry here, with its consent basis, in one reviewed
 * change. The member schema (`team-member-schema.ts`) is typed against this record, so a field
 * that is validated or rendered without an entry here does not compile, and the tests check
 * the key sets both ways at run time too.
 */
export interface RosterConsent {
  /** Why this field may leave TalkIDE: the user's explicit consent, or a structural need. */
  readonly basis: string;
  /** What the field is used for once it is in the render state. */
  readonly purpose: string;
  /** Whether the field's value is written into CLAUDE.md (structural fields are not). */
  readonly rendered: boolean;
}

const allowlist = {
  id: {
    basis: "structural: an opaque member identifier, no personal data",
    purpose: "identifies the member and the active writer; never rendered",
    rendered: false,
  },
  createdAt: {
    basis: "structural: the time the member joined the project",
    purpose: "orders the roster deterministically; never rendered",
    rendered: false,
  },
  salutation: {
    basis: 'explicit consent: the user typed it as "address me as X"',
    purpose: "how Mara addresses the member and names the active writer",
    rendered: true,
  },
  teamBriefing: {
    basis: "explicit consent: the user wrote it as instructions for the team",
    purpose: "per-member guidance that Mara routes to the agents she delegates to",
    rendered: true,
  },
} as const satisfies Record<string, RosterConsent>;

/** A roster field that the allowlist admits. */
export type AllowedRosterField = keyof typeof allowlist;

/** The allowlist, frozen at every level so that nothing can widen it at run time. */
export const ROSTER_ALLOWLIST: Readonly<Record<AllowedRosterField, RosterConsent>> = Object.freeze({
  id: Object.freeze(allowlist.id),
  createdAt: Object.freeze(allowlist.createdAt),
  salutation: Object.freeze(allowlist.salutation),
  teamBriefing: Object.freeze(allowlist.teamBriefing),
});

/** The allowed field names, in the order the roster documents them. */
export const ROSTER_FIELDS: ReadonlyArray<AllowedRosterField> = Object.freeze(
  Object.keys(ROSTER_ALLOWLIST) as AllowedRosterField[],
);

/**
 * Whether `key` is an allowed roster field. Uses an own-property test, so inherited names
 * (`__proto__`, `constructor`, `toString`) are never mistaken for allowed fields.
 */
export function isAllowedRosterField(key: string): key is AllowedRosterField {
  return Object.hasOwn(ROSTER_ALLOWLIST, key);
}
