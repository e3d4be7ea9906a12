import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { ROSTER_ALLOWLIST, isAllowedRosterField } from "./allowlist.ts";
import { RosterRowError, toRosterMember, type MemberUserRow } from "./roster-member.ts";
import {
  anyKeyArb,
  canaryArb,
  everythingAbout,
  nestedCanaryArb,
  objectWith,
  safeJson,
  without,
} from "./test-support/canary.ts";

const fullRow: MemberUserRow = {
  id: "m1",
  createdAt: "2026-05-02T14:32:11.123456Z",
  salutation: "Anna",
  teamBriefing: "Testy piš ve Vitestu.",
  email: "anna@example.com",
  displayName: "Anna Nováková",
  phone: "+420 777 123 456",
  address: "Dlouhá 1, Praha",
  userId: 42,
  projectId: 7,
};

describe("toRosterMember", () => {
  it("takes exactly the allowlisted fields from a full member+user row", () => {
    expect(toRosterMember(fullRow)).toEqual({
      id: "m1",
      createdAt: "2026-05-02T14:32:11.123456Z",
      salutation: "Anna",
      teamBriefing: "Testy piš ve Vitestu.",
    });
    expect(Object.keys(toRosterMember(fullRow)).sort()).toEqual(
      Object.keys(ROSTER_ALLOWLIST).sort(),
    );
  });

  it("turns an absent or null briefing into null", () => {
    const withoutBriefing = without(fullRow, "teamBriefing");
    expect(toRosterMember(withoutBriefing as MemberUserRow).teamBriefing).toBeNull();
    expect(toRosterMember({ ...fullRow, teamBriefing: null }).teamBriefing).toBeNull();
  });

  it("names a missing or mistyped column, never its value", () => {
    const withoutSalutation = without(fullRow, "salutation");
    expect(() => toRosterMember(withoutSalutation as MemberUserRow)).toThrow(
      expect.objectContaining({ code: "missing_column", column: "salutation" }),
    );
    const mistyped = { ...fullRow, createdAt: new Date(0) } as unknown as MemberUserRow;
    expect(() => toRosterMember(mistyped)).toThrow(
      expect.objectContaining({ code: "invalid_column", column: "createdAt" }),
    );
    expect(() =>
      toRosterMember({ ...fullRow, teamBriefing: 5 } as unknown as MemberUserRow),
    ).toThrow(RosterRowError);
    expect(() => toRosterMember(null as unknown as MemberUserRow)).toThrow(
      expect.objectContaining({ code: "invalid_row" }),
    );
  });

  it("does not read roster columns through the prototype chain", () => {
    const inherited = Object.create({ salutation: "Anna" }) as Record<string, unknown>;
    Object.assign(inherited, { id: "m1", createdAt: "2026-05-02T14:32:11Z" });
    expect(() => toRosterMember(inherited as MemberUserRow)).toThrow(
      expect.objectContaining({ code: "missing_column" }),
    );
  });

  const extraColumnsArb = canaryArb.chain((canary) =>
    fc
      .array(fc.tuple(anyKeyArb, nestedCanaryArb(canary)), { minLength: 1, maxLength: 4 })
      .map((columns) => ({ canary, columns })),
  );

  test.prop([extraColumnsArb], { numRuns: 1000 })(
    "never copies any other column, whatever its name or depth",
    ({ canary, columns }) => {
      let row: Record<string, unknown> = { ...fullRow };
      for (const [key, value] of columns)
        if (!isAllowedRosterField(key)) row = objectWith(row, key, value);
      const member = toRosterMember(row as MemberUserRow);
      expect(Object.keys(member).sort()).toEqual(Object.keys(ROSTER_ALLOWLIST).sort());
      expect(safeJson(member)).not.toContain(canary);
    },
  );

  test.prop([extraColumnsArb, fc.constantFrom("id", "createdAt", "salutation", "teamBriefing")], {
    numRuns: 1000,
  })(
    "never repeats a canary in the error it throws, even one in the broken column",
    ({ canary, columns }, brokenColumn) => {
      let row: Record<string, unknown> = { ...fullRow };
      for (const [key, value] of columns)
        if (!isAllowedRosterField(key)) row = objectWith(row, key, value);
      // The broken column holds the canary too, wrapped so that its type is wrong.
      row = objectWith(row, brokenColumn, { nested: [canary] });
      let thrown: unknown;
      try {
        toRosterMember(row as MemberUserRow);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RosterRowError);
      expect(everythingAbout(thrown)).not.toContain(canary);
    },
  );
});
