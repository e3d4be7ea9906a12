import { formatPath, isAllowedRosterField } from "@talkide/privacy";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { runRender } from "./cli/render-command.ts";
import { parseRenderState } from "./parse.ts";
import { validStateArb } from "./test-support/arbitraries.ts";

/**
 * Privacy: a canary (a random unique string) placed in a forbidden or unknown field, at any
 * depth and under any key, or as a broken value of an allowed field, never appears in the
 * output, the error (code, path, message) or anything the bin writes.
 */

const canaryArb = fc.stringMatching(/^[a-z0-9]{20}$/u).map((suffix) => `canary-${suffix}`);

const keyArb = fc.oneof(
  fc.constantFrom(
    "email",
    "displayName",
    "fullName",
    "phone",
    "address",
    "name",
    "Salutation",
    "__proto__",
    "constructor",
    "toString",
    "",
    "e-mail",
    "a.b",
  ),
  fc.string({ maxLength: 10 }),
);

function nested(canary: string): fc.Arbitrary<unknown> {
  const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
    tree: fc.oneof(
      { depthSize: "small" },
      fc.constant(canary),
      fc
        .tuple(fc.array(fc.integer(), { maxLength: 2 }), tie("tree"))
        .map(([before, inner]) => [...before, inner]),
      fc.tuple(keyArb, tie("tree")).map(([key, inner]) => ownObject([[key, inner]])),
    ),
  }));
  return tree;
}

/** An object with the given own keys, `__proto__` included. */
function ownObject(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

function addKey(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

type Placement = "member" | "project" | "top" | "wrong-type" | "bad-value";

const BAD_VALUES: ReadonlyArray<
  (
    canary: string,
  ) => [
    field: "salutation" | "createdAt" | "teamBriefing" | "name" | "activeMemberId",
    value: string,
  ]
> = [
  (canary) => ["salutation", `1${canary}`],
  (canary) => ["salutation", `${canary}"`],
  (canary) => ["createdAt", canary],
  (canary) => ["teamBriefing", `${canary}\u0000`],
  (canary) => ["name", `${canary}\n${canary}`],
  (canary) => ["activeMemberId", canary],
];

describe("canaries", () => {
  test.prop(
    [
      validStateArb({ maxMembers: 3 }),
      canaryArb.chain((canary) => nested(canary).map((value) => ({ canary, value }))),
      keyArb,
      fc.constantFrom<Placement>("member", "project", "top", "wrong-type", "bad-value"),
      fc.nat(),
    ],
    { numRuns: 1000 },
  )(
    "never reach the output, the error or the bin's streams",
    (generated, { canary, value }, key, placement, pick) => {
      const state = structuredClone(generated.state);
      const index = pick % state.team.length;
      const member = state.team[index] as unknown as Record<string, unknown>;
      let expected: { code: string; path: string } | null = null;
      switch (placement) {
        case "member":
          fc.pre(!isAllowedRosterField(key));
          addKey(member, key, value);
          expected = { code: "forbidden_field", path: formatPath(["team", index, key]) };
          break;
        case "project":
          fc.pre(
            ![
              "id",
              "name",
              "url",
              "description",
              "backendLanguage",
              "backendFramework",
              "frontendLanguage",
              "frontendFramework",
            ].includes(key),
          );
          addKey(state.project, key, value);
          expected = { code: "unknown_field", path: formatPath(["project", key]) };
          break;
        case "top":
          fc.pre(!["project", "team", "activeMemberId"].includes(key));
          addKey(state, key, value);
          expected = { code: "unknown_field", path: formatPath([key]) };
          break;
        case "wrong-type": {
          fc.pre(typeof value !== "string");
          const field =
            (["salutation", "id", "createdAt", "teamBriefing"] as const)[pick % 4] ?? "salutation";
          member[field] = value;
          expected = { code: "invalid_field", path: formatPath(["team", index, field]) };
          break;
        }
        case "bad-value": {
          const [field, bad] = BAD_VALUES[pick % BAD_VALUES.length]?.(canary) ?? [
            "salutation",
            canary,
          ];
          if (field === "name") state.project.name = bad;
          else if (field === "activeMemberId") state.activeMemberId = bad;
          else member[field] = bad;
          break;
        }
      }

      const result = parseRenderState(state);
      expect(result.ok).toBe(false);
      if (expected !== null && !result.ok)
        expect({ code: result.error.code, path: result.error.path }).toEqual(expected);
      expect(JSON.stringify(result)).not.toContain(canary);

      const outcome = runRender(new TextEncoder().encode(JSON.stringify(state)), {
        layout: "single",
        file: "CLAUDE.md",
      });
      expect(outcome.exitCode).toBe(2);
      expect(outcome.stdout).toBe("");
      expect(outcome.stderr).not.toContain(canary);
    },
  );
});
