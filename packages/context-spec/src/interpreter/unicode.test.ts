import { test } from "@fast-check/vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareInstants, parseInstant } from "./instant.ts";
import { codePointLength, codePoints, compareCodePoints, trimWhiteSpace } from "./unicode.ts";

const WHITE_SPACE = codePoints(
  "\t\n\v\f\r \u0085\u00A0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u2028\u2029\u202F\u205F\u3000",
);

describe("unicode helpers", () => {
  it("trims exactly the White_Space characters, not U+FEFF or U+001C..U+001F", () => {
    expect(trimWhiteSpace(`${WHITE_SPACE.join("")}x${WHITE_SPACE.join("")}`)).toBe("x");
    for (const kept of ["\uFEFF", "\u001C", "\u001F", "\u200B"])
      expect(trimWhiteSpace(`${kept}x${kept}`)).toBe(`${kept}x${kept}`);
  });

  it("counts code points, not UTF-16 units", () => {
    expect(codePointLength("a\u{1F600}é")).toBe(3);
  });

  test.prop([fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" })], { numRuns: 1000 })(
    "compares like the code point arrays do",
    (a, b) => {
      const x = codePoints(a).map((c) => c.codePointAt(0) ?? 0);
      const y = codePoints(b).map((c) => c.codePointAt(0) ?? 0);
      let expected = 0;
      for (let i = 0; i < Math.max(x.length, y.length) && expected === 0; i++) {
        if (i >= x.length) expected = -1;
        else if (i >= y.length) expected = 1;
        else expected = Math.sign((x[i] ?? 0) - (y[i] ?? 0));
      }
      expect(compareCodePoints(a, b)).toBe(expected);
    },
  );
});

describe("RFC 3339 instants", () => {
  test.prop(
    [
      fc.date({
        min: new Date("0001-01-01T00:00:00Z"),
        max: new Date("9999-12-31T23:59:59Z"),
        noInvalidDate: true,
      }),
      fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
    ],
    { numRuns: 1000 },
  )("agree with Date on the instant, whatever the offset", (date, offsetMinutes) => {
    const local = new Date(date.getTime() + offsetMinutes * 60_000);
    const sign = offsetMinutes < 0 ? "-" : "+";
    const abs = Math.abs(offsetMinutes);
    const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
    const year = local.getUTCFullYear();
    fc.pre(year >= 0 && year <= 9999);
    const text = `${local
      .toISOString()
      .slice(0, 23)
      .replace(/^\+?0*(\d{4})/u, "$1")}${offset}`;
    const instant = parseInstant(text);
    expect(instant).not.toBeNull();
    expect(
      (instant?.epochSeconds ?? 0) * 1000 + Math.floor((instant?.nanoseconds ?? 0) / 1e6),
    ).toBe(date.getTime());
  });

  it("orders nanoseconds beyond what Date can hold", () => {
    const a = parseInstant("2026-05-02T14:32:11.499999999Z");
    const b = parseInstant("2026-05-02T14:32:11.5Z");
    expect(a !== null && b !== null && compareInstants(a, b)).toBe(-1);
  });

  it.each([
    "2026-02-29T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-05-02T24:00:00Z",
    "2026-05-02T14:32:60Z",
    "2026-05-02T14:32:11+24:00",
    "2026-05-02T14:32:11.Z",
    "2026-05-02 14:32:11Z",
  ])("refuses %s", (text) => {
    expect(parseInstant(text)).toBeNull();
  });

  it("accepts 29 February of a leap year and the -00:00 offset", () => {
    expect(parseInstant("2028-02-29T00:00:00-00:00")).not.toBeNull();
    expect(parseInstant("2000-02-29T00:00:00Z")).not.toBeNull();
    expect(parseInstant("1900-02-29T00:00:00Z")).toBeNull();
  });
});
