export { ROSTER_ALLOWLIST, type AllowedRosterField } from "./allowlist.ts";
