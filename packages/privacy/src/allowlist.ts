/** Roster fields that may reach the model provider, each with the consent that allows it. */
export const ROSTER_ALLOWLIST = {
  id: { basis: "structural", purpose: "stable member identity; never rendered" },
  createdAt: { basis: "structural", purpose: "deterministic roster order; never rendered" },
  salutation: { basis: "user typed 'address me as X'", purpose: "how Mara addresses the member" },
  teamBriefing: {
    basis: "user wrote it as instructions for the team",
    purpose: "per-member guidance routed by Mara",
  },
} as const;

export type AllowedRosterField = keyof typeof ROSTER_ALLOWLIST;
