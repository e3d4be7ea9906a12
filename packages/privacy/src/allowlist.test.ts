import { describe, expect, it } from "vitest";
import { ROSTER_ALLOWLIST, ROSTER_FIELDS, isAllowedRosterField } from "./allowlist.ts";

describe("ROSTER_ALLOWLIST", () => {
  it("admits exactly the consented and the structural fields", () => {
    expect(Object.keys(ROSTER_ALLOWLIST).sort()).toEqual([
      "createdAt",
      "id",
      "salutation",
      "teamBriefing",
    ]);
    expect([...ROSTER_FIELDS].sort()).toEqual(Object.keys(ROSTER_ALLOWLIST).sort());
  });

  it("renders only the fields the user wrote for the model; structural fields stay out of CLAUDE.md", () => {
    const rendered = ROSTER_FIELDS.filter((field) => ROSTER_ALLOWLIST[field].rendered);
    expect(rendered.sort()).toEqual(["salutation", "teamBriefing"]);
  });

  it("states a consent basis and a purpose for every field", () => {
    for (const field of ROSTER_FIELDS) {
      expect(ROSTER_ALLOWLIST[field].basis.trim()).not.toBe("");
      expect(ROSTER_ALLOWLIST[field].purpose.trim()).not.toBe("");
    }
  });

  it("cannot be widened or altered at run time", () => {
    expect(Object.isFrozen(ROSTER_ALLOWLIST)).toBe(true);
    expect(Object.isFrozen(ROSTER_FIELDS)).toBe(true);
    for (const field of ROSTER_FIELDS) expect(Object.isFrozen(ROSTER_ALLOWLIST[field])).toBe(true);
    expect(() => {
      Object.defineProperty(ROSTER_ALLOWLIST, "email", { value: {} });
    }).toThrow(TypeError);
  });

  it("never mistakes an inherited property name for an allowed field", () => {
    for (const key of [
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      "valueOf",
      "email",
      "Id",
      "",
    ]) {
      expect(isAllowedRosterField(key)).toBe(false);
    }
    for (const field of ROSTER_FIELDS) expect(isAllowedRosterField(field)).toBe(true);
  });
});
