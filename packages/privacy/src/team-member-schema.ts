import { z } from "zod";
import { type AllowedRosterField, isAllowedRosterField } from "./allowlist.ts";

/**
 * The JSON type of every allowed roster field. The record is typed against the allowlist in
 * both directions: `satisfies` fails to compile when a field of the allowlist is missing
 * here, and its excess-property check fails when a field here is not on the allowlist (the
 * tests check the same at run time).
 *
 * These schemas fix types only. What a valid value looks like (lengths, characters, the
 * timestamp grammar) is the render state's business and lives in `@talkide/renderer`.
 */
export const TEAM_MEMBER_FIELD_SCHEMAS = {
  id: z.string(),
  createdAt: z.string(),
  salutation: z.string(),
  teamBriefing: z.string().nullable().optional(),
} as const satisfies { readonly [K in AllowedRosterField]: z.ZodType };

/** The issue code a roster key outside the allowlist carries in its zod issue's `params`. */
export const FORBIDDEN_FIELD = "forbidden_field";

/**
 * Rejects, one issue per key, every own key that the allowlist does not admit. Written by
 * hand rather than with zod's strict objects because those silently skip a `__proto__` key
 * that `JSON.parse` creates as an own property; here it is rejected like any other.
 * The issue never carries the value under the key: it may be personal data.
 */
const onlyAllowedKeys = z.unknown().check((ctx) => {
  const member = ctx.value;
  if (typeof member !== "object" || member === null || Array.isArray(member)) return;
  const forbidden = Object.keys(member).filter((key) => !isAllowedRosterField(key));
  // Code-unit order, not input order: the reported key must not depend on how the JSON
  // happened to order its keys.
  forbidden.sort(compareCodeUnits);
  for (const key of forbidden) {
    ctx.issues.push({
      code: "custom",
      path: [key],
      message: "this field is not on the privacy allowlist; remove it from the roster entry",
      params: { code: FORBIDDEN_FIELD },
      input: undefined,
    });
  }
});

/**
 * A team member of the render state: exactly the allowlisted keys with their JSON types.
 * Any other key, at any position, is an issue with `params.code === "forbidden_field"` and
 * the key as its path; type checks run only once no forbidden key is left.
 */
export const teamMemberSchema = onlyAllowedKeys.pipe(z.strictObject(TEAM_MEMBER_FIELD_SCHEMAS));

/** A team member as the schema admits it (types checked, content not yet normalized). */
export type TeamMemberInput = z.output<typeof teamMemberSchema>;

function compareCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
