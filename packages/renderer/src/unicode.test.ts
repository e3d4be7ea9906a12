import { startsWithUnicode13Letter } from "@talkide/context-spec/unicode";
import { describe, expect, it } from "vitest";
import {
  codePointLength,
  collapseWhiteSpace,
  compareCodePoints,
  hasControlOrLineSeparator,
  hasControlOtherThanTabOrLineFeed,
  hasUnpairedSurrogate,
  trimWhiteSpace,
  unifyLineBreaks,
} from "./unicode.ts";

describe("white space", () => {
  it("trims exactly the White_Space characters, not U+FEFF nor U+001C–U+001F", () => {
    expect(trimWhiteSpace("\u0085\u00a0\u2028 a b\u3000\t\u000b")).toBe("a b");
    expect(trimWhiteSpace("\ufeffa\ufeff")).toBe("\ufeffa\ufeff");
    expect(trimWhiteSpace("\u001ca\u001f")).toBe("\u001ca\u001f");
  });

  it("collapses every run, line breaks included, into one space", () => {
    expect(collapseWhiteSpace("a\r\n\t b\u2029\u00a0c")).toBe("a b c");
  });
});

describe("control characters", () => {
  it("counts U+2028/U+2029 with the controls of a single line", () => {
    for (const bad of [
      "\u0000",
      "\u001f",
      "\u007f",
      "\u0085",
      "\u009f",
      "\n",
      "\u2028",
      "\u2029",
    ]) {
      expect(hasControlOrLineSeparator(`a${bad}b`)).toBe(true);
    }
    expect(hasControlOrLineSeparator("a\u200fb\ufeff")).toBe(false);
  });

  it("allows tab and line feed in a briefing, nothing else", () => {
    expect(hasControlOtherThanTabOrLineFeed("a\tb\nc")).toBe(false);
    expect(hasControlOtherThanTabOrLineFeed("a\u000bb")).toBe(true);
    expect(hasControlOtherThanTabOrLineFeed("a\u001bb")).toBe(true);
  });

  it("turns every line break kind into one line feed", () => {
    expect(unifyLineBreaks("a\r\nb\rc\u0085d\u2028e\u2029f\n\r")).toBe("a\nb\nc\nd\ne\nf\n\n");
  });
});

describe("code points", () => {
  it("counts a character above U+FFFF once and an unpaired surrogate once", () => {
    expect(codePointLength("😀a")).toBe(2);
    expect(codePointLength("\ud800a")).toBe(2);
    expect(codePointLength("a\udc00")).toBe(2);
  });

  it("finds unpaired surrogates only", () => {
    expect(hasUnpairedSurrogate("😀")).toBe(false);
    expect(hasUnpairedSurrogate("\ud83d")).toBe(true);
    expect(hasUnpairedSurrogate("\ude00x")).toBe(true);
  });

  it("orders by code point, where UTF-16 order would put U+E000 after U+1F600", () => {
    expect(compareCodePoints("\ue000", "😀")).toBe(-1);
    const [privateUse, emoji]: string[] = ["\ue000", "😀"];
    expect((privateUse ?? "") < (emoji ?? "")).toBe(false);
    expect(compareCodePoints("a", "ab")).toBe(-1);
    expect(compareCodePoints("ab", "a")).toBe(1);
    expect(compareCodePoints("😀x", "😀x")).toBe(0);
  });

  it("knows a letter of any script", () => {
    for (const letter of ["A", "ž", "Ж", "漢", "م", "𝔘", "ǅ"])
      expect(startsWithUnicode13Letter(`${letter}x`)).toBe(true);
    // "\u0870" is a letter since Unicode 14: the spec's rules are bound to Unicode 13.0.0.
    for (const other of ["1", "#", ">", "-", "\u0301a", "😀", " ", "\u0870"])
      expect(startsWithUnicode13Letter(other)).toBe(false);
  });
});
