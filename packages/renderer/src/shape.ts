import { FORBIDDEN_FIELD, formatPath, teamMemberSchema } from "@talkide/privacy";
import { z } from "zod";
import {
  forbiddenField,
  invalidField,
  missingField,
  unknownField,
  type RenderStateError,
  type RenderStateErrorCode,
} from "./errors.ts";

/**
 * The structure of the render state: which keys exist and their JSON types. Content (NFC,
 * lengths, characters, timestamps) is `normalize.ts`'s job and runs only on a state whose
 * structure passed here.
 */

const UNKNOWN_FIELD: RenderStateErrorCode = "unknown_field";

/**
 * An object that admits only the keys of `shape`. The key check is ours, not zod's strict
 * mode, because zod skips an own `__proto__` key, which `JSON.parse` can produce. Unknown
 * keys are reported in code-unit order, so the same document always gives the same error
 * whatever order its keys came in. Types are checked once no unknown key is left.
 */
function closedObject<Shape extends z.ZodRawShape>(shape: Shape) {
  return z
    .unknown()
    .check((ctx) => {
      const value = ctx.value;
      if (typeof value !== "object" || value === null || Array.isArray(value)) return;
      const unknown = Object.keys(value).filter((key) => !Object.hasOwn(shape, key));
      unknown.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const key of unknown) {
        ctx.issues.push({
          code: "custom",
          path: [key],
          message: "not a field of the render state",
          params: { code: UNKNOWN_FIELD },
          input: undefined,
        });
      }
    })
    .pipe(z.object(shape));
}

const projectShape = closedObject({
  id: z.number(),
  name: z.string(),
  url: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  backendLanguage: z.string().optional(),
  backendFramework: z.string().optional(),
  frontendLanguage: z.string().optional(),
  frontendFramework: z.string().optional(),
});

/** The whole document; team members are the privacy package's schema, allowlist and all. */
export const renderStateShape = closedObject({
  project: projectShape,
  team: z.array(teamMemberSchema),
  activeMemberId: z.string(),
});

export type ShapedRenderState = z.output<typeof renderStateShape>;

/**
 * Turns the first structural issue into the render state's error. Zod reports issues in the
 * order of the schema (project, team member by member, activeMemberId), never in the order
 * of the input's keys.
 */
export function structuralError(
  issues: ReadonlyArray<z.core.$ZodIssue>,
  input: unknown,
): RenderStateError {
  const issue = issues[0];
  if (issue === undefined) return invalidField("", "wrong_type");
  const segments = issue.path.filter(
    (segment): segment is string | number => typeof segment !== "symbol",
  );
  const path = formatPath(segments);
  if (issue.code === "custom") {
    const code: unknown = issue.params?.["code"];
    if (code === FORBIDDEN_FIELD) return forbiddenField(path);
    if (code === UNKNOWN_FIELD) return unknownField(path);
  }
  if (issue.code === "invalid_type") {
    if (isAbsentKey(input, segments)) return missingField(path);
    const field = segments.at(-1);
    if (typeof field === "string" && NULLABLE_FIELDS.has(field))
      return invalidField(path, "not_a_string_or_null");
    return invalidField(path, typeFault(issue.expected));
  }
  return invalidField(path, "wrong_type");
}

/** Fields where `null` is as good as absent: their type error says so. */
const NULLABLE_FIELDS: ReadonlySet<string> = new Set(["url", "description", "teamBriefing"]);

function typeFault(expected: string): Parameters<typeof invalidField>[1] {
  switch (expected) {
    case "object":
      return "not_an_object";
    case "array":
      return "not_an_array";
    case "number":
      return "not_a_whole_number";
    default:
      return "not_a_string";
  }
}

/** Whether `segments` ends in a key that its (present) parent object does not have. */
function isAbsentKey(input: unknown, segments: ReadonlyArray<string | number>): boolean {
  if (segments.length === 0) return false;
  let parent: unknown = input;
  for (const segment of segments.slice(0, -1)) {
    if (typeof parent !== "object" || parent === null) return false;
    parent = (parent as Record<string | number, unknown>)[segment];
  }
  const last = segments[segments.length - 1];
  return (
    typeof parent === "object" &&
    parent !== null &&
    !Array.isArray(parent) &&
    !Object.hasOwn(parent, String(last))
  );
}
