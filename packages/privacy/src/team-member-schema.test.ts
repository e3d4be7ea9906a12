import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { ROSTER_ALLOWLIST, isAllowedRosterField } from "./allowlist.ts";
import {
  FORBIDDEN_FIELD,
  TEAM_MEMBER_FIELD_SCHEMAS,
  teamMemberSchema,
} from "./team-member-schema.ts";
import {
  anyKeyArb,
  canaryArb,
  nestedCanaryArb,
  objectWith,
  safeJson,
  without,
} from "./test-support/canary.ts";

const validMember = {
  id: "m1",
  createdAt: "2026-05-02T14:32:11Z",
  salutation: "Anna",
  teamBriefing: "Preferuji Pinia.",
};

describe("teamMemberSchema", () => {
  it("validates exactly the allowlisted fields, in both directions", () => {
    // A field validated (and so admitted into the render state) without an allowlist entry,
    // or an allowlist entry the schema forgot, fails here.
    const schemaFields = Object.keys(TEAM_MEMBER_FIELD_SCHEMAS).sort();
    const allowlistFields = Object.keys(ROSTER_ALLOWLIST).sort();
    expect(schemaFields).toEqual(allowlistFields);
    expect(Object.keys(teamMemberSchema.out.shape).sort()).toEqual(allowlistFields);
  });

  it("admits a member with the allowlisted fields and returns exactly those", () => {
    expect(teamMemberSchema.parse(validMember)).toEqual(validMember);
    expect(teamMemberSchema.parse({ ...validMember, teamBriefing: null })).toEqual({
      ...validMember,
      teamBriefing: null,
    });
    const withoutBriefing = without(validMember, "teamBriefing");
    expect(teamMemberSchema.parse(withoutBriefing)).toEqual(withoutBriefing);
  });

  it("reports a key outside the allowlist as forbidden_field with its path", () => {
    const result = teamMemberSchema.safeParse({ ...validMember, email: "anna@example.com" });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        code: "custom",
        path: ["email"],
        params: { code: FORBIDDEN_FIELD },
      }),
    ]);
  });

  it("rejects a __proto__ key that JSON.parse made an own property", () => {
    const member: unknown = JSON.parse(
      `{"__proto__":{"email":"anna@example.com"},"id":"m1","createdAt":"x","salutation":"A"}`,
    );
    const issues = teamMemberSchema.safeParse(member).error?.issues ?? [];
    expect(
      issues.map((issue) => [issue.path, issue.code === "custom" ? issue.params : undefined]),
    ).toEqual([[["__proto__"], { code: FORBIDDEN_FIELD }]]);
  });

  it("reports every forbidden key in code-unit order, whatever the input order", () => {
    const issues = teamMemberSchema.safeParse({
      phone: "1",
      ...validMember,
      email: "e",
      address: "a",
    }).error?.issues;
    expect(issues?.map((issue) => issue.path)).toEqual([["address"], ["email"], ["phone"]]);
  });

  it("checks types only once no forbidden key is left", () => {
    const issues = teamMemberSchema.safeParse({ ...validMember, salutation: 7, email: "e" }).error
      ?.issues;
    expect(issues?.map((issue) => issue.path)).toEqual([["email"]]);
    const typeIssues = teamMemberSchema.safeParse({ ...validMember, salutation: 7 }).error?.issues;
    expect(typeIssues?.map((issue) => [issue.code, issue.path])).toEqual([
      ["invalid_type", ["salutation"]],
    ]);
  });

  test.prop(
    [
      canaryArb,
      anyKeyArb,
      canaryArb.chain((canary) => nestedCanaryArb(canary).map((value) => ({ canary, value }))),
    ],
    {
      numRuns: 1000,
    },
  )(
    "never repeats a canary placed under any forbidden key, at any depth, in its issues",
    (topCanary, key, { canary: deepCanary, value }) => {
      fc.pre(!isAllowedRosterField(key));
      const member = objectWith({ ...validMember, salutation: topCanary }, key, value);
      const result = teamMemberSchema.safeParse(member);
      expect(result.success).toBe(false);
      const issues = result.error?.issues ?? [];
      expect(issues[0]?.path).toEqual([key]);
      expect(issues[0]?.code === "custom" && issues[0].params).toEqual({ code: FORBIDDEN_FIELD });
      const everything = [safeJson(issues), result.error?.message ?? "", String(result.error)].join(
        "\n",
      );
      expect(everything).not.toContain(deepCanary);
      expect(everything).not.toContain(topCanary);
    },
  );

  test.prop(
    [
      canaryArb.chain((canary) => nestedCanaryArb(canary).map((value) => ({ canary, value }))),
      fc.constantFrom(...Object.keys(ROSTER_ALLOWLIST)),
    ],
    {
      numRuns: 1000,
    },
  )(
    "never repeats a canary that sits in an allowed field of the wrong type",
    ({ canary, value }, field) => {
      fc.pre(typeof value !== "string" && value !== null);
      const result = teamMemberSchema.safeParse({ ...validMember, [field]: value });
      expect(result.success).toBe(false);
      expect(
        [safeJson(result.error?.issues), result.error?.message ?? ""].join("\n"),
      ).not.toContain(canary);
    },
  );
});
