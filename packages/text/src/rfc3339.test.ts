import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  compareInstants,
  isRfc3339Timestamp,
  parseInstant,
  type Rfc3339Options,
} from "./rfc3339.ts";

const EITHER: Rfc3339Options = { letters: "either-case" };
const UPPER: Rfc3339Options = { letters: "upper-case" };

describe("parseInstant, T and Z in either case (CLAUDE.md's createdAt)", () => {
  it("reads RFC 3339 with an offset as an exact instant", () => {
    expect(parseInstant("1970-01-01T00:00:00Z", EITHER)).toEqual({
      epochSeconds: 0,
      nanoseconds: 0,
    });
    expect(parseInstant("2026-05-02T16:32:11+02:00", EITHER)).toEqual(
      parseInstant("2026-05-02T14:32:11Z", EITHER),
    );
    expect(parseInstant("2026-05-02T14:32:11-00:00", EITHER)).toEqual(
      parseInstant("2026-05-02T14:32:11Z", EITHER),
    );
    // Contract 1.2 (v2): the letters T and Z in either case, as RFC 3339 5.6 allows.
    expect(parseInstant("2026-05-02t14:32:11z", EITHER)).toEqual(
      parseInstant("2026-05-02T14:32:11Z", EITHER),
    );
    expect(parseInstant("2026-05-02t16:32:11+02:00", EITHER)).toEqual(
      parseInstant("2026-05-02T14:32:11Z", EITHER),
    );
    expect(parseInstant("2026-05-02T14:32:11.5Z", EITHER)).toEqual({
      epochSeconds: 1_777_732_331,
      nanoseconds: 500_000_000,
    });
    expect(parseInstant("2026-05-02T14:32:11.000000001Z", EITHER)?.nanoseconds).toBe(1);
    expect(parseInstant("0000-01-01T00:00:00Z", EITHER)?.epochSeconds).toBe(-62_167_219_200);
    expect(parseInstant("9999-12-31T23:59:59.999999999Z", EITHER)).toEqual({
      epochSeconds: 253_402_300_799,
      nanoseconds: 999_999_999,
    });
    expect(parseInstant("2024-02-29T00:00:00Z", EITHER)).not.toBeNull();
    expect(parseInstant("2000-02-29T00:00:00Z", EITHER)).not.toBeNull();
  });

  it("refuses what the spec's grammar does not admit", () => {
    for (const bad of [
      "2026-05-02T14:32:11",
      "2026-05-02 14:32:11Z",
      "2026-05-02T14:32:11.Z",
      "2026-05-02T14:32:11.1234567891Z",
      "2026-05-02T14:32:60Z",
      "2026-05-02T24:00:00Z",
      "2026-05-02T14:60:00Z",
      "2026-13-02T14:32:11Z",
      "2026-00-02T14:32:11Z",
      "2026-02-29T14:32:11Z",
      "1900-02-29T14:32:11Z",
      "2026-04-31T14:32:11Z",
      "2026-05-00T14:32:11Z",
      "2026-05-02T14:32:11+24:00",
      "2026-05-02T14:32:11+02:60",
      "2026-05-02T14:32:11+0200",
      "+2026-05-02T14:32:11Z",
      "2026-05-02T14:32:11Z ",
      "２０２６-05-02T14:32:11Z",
      "",
    ]) {
      expect(parseInstant(bad, EITHER), bad).toBeNull();
    }
  });

  test.prop(
    [fc.integer({ min: -62_135_596_800, max: 253_402_300_799 }), fc.integer({ min: 0, max: 999 })],
    { numRuns: 1000 },
  )("agrees with the UTC calendar on every second of years 1–9999", (seconds, millis) => {
    const iso = new Date(seconds * 1000 + millis).toISOString();
    expect(parseInstant(iso, EITHER)).toEqual({
      epochSeconds: seconds,
      nanoseconds: millis * 1_000_000,
    });
  });

  it("orders by seconds, then by nanoseconds", () => {
    const earlier = parseInstant("2026-05-02T14:32:11.999999999Z", EITHER);
    const later = parseInstant("2026-05-02T14:32:12.000000000Z", EITHER);
    if (earlier === null || later === null) throw new Error("fixtures must parse");
    expect(compareInstants(earlier, later)).toBe(-1);
    expect(compareInstants(later, earlier)).toBe(1);
    expect(compareInstants(earlier, earlier)).toBe(0);
  });
});

describe("upper-case T and Z only (the wake prompt's created_at)", () => {
  it("refuses the lower-case letters and nothing else that the either-case form admits", () => {
    expect(isRfc3339Timestamp("2026-05-02T14:32:11.5Z", UPPER)).toBe(true);
    expect(isRfc3339Timestamp("2026-05-02T16:32:11+02:00", UPPER)).toBe(true);
    for (const lower of [
      "2026-05-02t14:32:11Z",
      "2026-05-02T14:32:11z",
      "2026-05-02t14:32:11+02:00",
    ]) {
      expect(isRfc3339Timestamp(lower, UPPER), lower).toBe(false);
      expect(isRfc3339Timestamp(lower, EITHER), lower).toBe(true);
    }
  });

  test.prop([
    fc.date({
      noInvalidDate: true,
      min: new Date("0001-01-01T00:00:00Z"),
      max: new Date("9999-12-31T23:59:59.999Z"),
    }),
    fc.boolean(),
    fc.boolean(),
  ])(
    "admits exactly the either-case timestamps whose letters are upper case, with the same instant",
    (date, lowerT, lowerZ) => {
      const iso = date.toISOString();
      const text = iso.replace("T", lowerT ? "t" : "T").replace("Z", lowerZ ? "z" : "Z");
      const either = parseInstant(text, EITHER);
      expect(either).toEqual(parseInstant(iso, EITHER));
      expect(parseInstant(text, UPPER)).toEqual(lowerT || lowerZ ? null : either);
    },
  );

  test.prop([
    fc.date({
      noInvalidDate: true,
      min: new Date("0001-01-01T00:00:00Z"),
      max: new Date("9999-12-31T23:59:59.999Z"),
    }),
  ])("admits every timestamp Date#toISOString writes", (date) => {
    expect(isRfc3339Timestamp(date.toISOString(), UPPER)).toBe(true);
  });
});
