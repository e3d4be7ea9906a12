import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  collapseWhiteSpace,
  hasWhiteSpace,
  isBlank,
  stripTrailingWhiteSpace,
  trimWhiteSpace,
} from "./white-space.ts";

/** The contract's list of White_Space characters (spec/claude-md.md, "Terms used"). */
const CONTRACT_WHITE_SPACE = [
  ...Array.from("\t\n\u000b\f\r \u0085\u00a0\u1680"),
  ...Array.from({ length: 11 }, (_, i) => String.fromCodePoint(0x2000 + i)),
  ...Array.from("\u2028\u2029\u202f\u205f\u3000"),
];
const isContractWhiteSpace = (char: string): boolean => CONTRACT_WHITE_SPACE.includes(char);

describe("white space", () => {
  it("trims exactly the White_Space characters, not U+FEFF nor U+001C–U+001F", () => {
    expect(trimWhiteSpace("\u0085\u00a0\u2028 a b\u3000\t\u000b")).toBe("a b");
    expect(trimWhiteSpace("\ufeffa\ufeff")).toBe("\ufeffa\ufeff");
    expect(trimWhiteSpace("\u001ca\u001f")).toBe("\u001ca\u001f");
  });

  it("differs from String#trim exactly where the contract says it must", () => {
    // String#trim strips U+FEFF (not white space) and keeps U+0085 (white space).
    expect("\ufeffa".trim()).toBe("a");
    expect(trimWhiteSpace("\ufeffa")).toBe("\ufeffa");
    expect("\u0085a".trim()).toBe("\u0085a");
    expect(trimWhiteSpace("\u0085a")).toBe("a");
  });

  it("collapses every run, line breaks included, into one space", () => {
    expect(collapseWhiteSpace("a\r\n\t b\u2029\u00a0c")).toBe("a b c");
  });

  it("strips white space at the end of a line only", () => {
    expect(stripTrailingWhiteSpace(" a \t\u3000")).toBe(" a");
    expect(stripTrailingWhiteSpace("a\ufeff")).toBe("a\ufeff");
    expect(stripTrailingWhiteSpace("")).toBe("");
  });

  it("calls text blank only when nothing but white space is left", () => {
    expect(isBlank("")).toBe(true);
    expect(isBlank(" \u0085\u3000\n")).toBe(true);
    expect(isBlank("\ufeff")).toBe(false);
    expect(isBlank(" a ")).toBe(false);
  });

  const textWithWhiteSpace = fc.string({
    unit: fc.oneof(
      fc.constantFrom(...CONTRACT_WHITE_SPACE, "\ufeff", "\u001c", "\u180e", "\u200b"),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
    ),
  });

  test.prop([textWithWhiteSpace], { numRuns: 1000 })(
    "agree with the contract's list, code point by code point",
    (text) => {
      const chars = Array.from(text);
      let start = 0;
      let end = chars.length;
      while (start < end && isContractWhiteSpace(chars[start] ?? "")) start++;
      while (end > start && isContractWhiteSpace(chars[end - 1] ?? "")) end--;
      expect(trimWhiteSpace(text)).toBe(chars.slice(start, end).join(""));
      expect(isBlank(text)).toBe(start === end);
      expect(hasWhiteSpace(text)).toBe(chars.some(isContractWhiteSpace));
      let lineEnd = chars.length;
      while (lineEnd > 0 && isContractWhiteSpace(chars[lineEnd - 1] ?? "")) lineEnd--;
      expect(stripTrailingWhiteSpace(text)).toBe(chars.slice(0, lineEnd).join(""));
    },
  );
});
