export {
  ROSTER_ALLOWLIST,
  ROSTER_FIELDS,
  isAllowedRosterField,
  type AllowedRosterField,
  type RosterConsent,
} from "./allowlist.ts";
export { formatPath } from "./path.ts";
export {
  FORBIDDEN_FIELD,
  TEAM_MEMBER_FIELD_SCHEMAS,
  teamMemberSchema,
  type TeamMemberInput,
} from "./team-member-schema.ts";
export {
  RosterRowError,
  toRosterMember,
  type MemberUserRow,
  type RosterMember,
  type RosterRowErrorCode,
} from "./roster-member.ts";
