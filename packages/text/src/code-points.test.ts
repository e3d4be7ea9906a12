import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { codePointLength, compareCodePoints } from "./code-points.ts";

describe("code points", () => {
  it("counts a character above U+FFFF once and an unpaired surrogate once", () => {
    expect(codePointLength("😀a")).toBe(2);
    expect(codePointLength("\ud800a")).toBe(2);
    expect(codePointLength("a\udc00")).toBe(2);
  });

  it("orders by code point, where UTF-16 order would put U+E000 after U+1F600", () => {
    expect(compareCodePoints("\ue000", "😀")).toBe(-1);
    const [privateUse, emoji]: string[] = ["\ue000", "😀"];
    expect((privateUse ?? "") < (emoji ?? "")).toBe(false);
    expect(compareCodePoints("a", "ab")).toBe(-1);
    expect(compareCodePoints("ab", "a")).toBe(1);
    expect(compareCodePoints("😀x", "😀x")).toBe(0);
  });

  test.prop([fc.string({ unit: "binary" })], { numRuns: 1000 })(
    "counts what Array.from counts",
    (text) => {
      expect(codePointLength(text)).toBe(Array.from(text).length);
    },
  );

  test.prop([fc.string({ unit: "binary" }), fc.string({ unit: "binary" })], { numRuns: 1000 })(
    "orders as the arrays of code points do",
    (left, right) => {
      const a = Array.from(left, (c) => c.codePointAt(0) ?? 0);
      const b = Array.from(right, (c) => c.codePointAt(0) ?? 0);
      let expected = 0;
      for (let i = 0; i < Math.min(a.length, b.length) && expected === 0; i++)
        if (a[i] !== b[i]) expected = (a[i] ?? 0) < (b[i] ?? 0) ? -1 : 1;
      if (expected === 0 && a.length !== b.length) expected = a.length < b.length ? -1 : 1;
      expect(compareCodePoints(left, right)).toBe(expected);
    },
  );
});
