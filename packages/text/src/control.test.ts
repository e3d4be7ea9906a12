import { describe, expect, it } from "vitest";
import {
  hasControlCharacter,
  hasControlOrLineSeparator,
  hasControlOtherThanTabOrLineFeed,
  hasUnpairedSurrogate,
} from "./control.ts";

describe("control characters", () => {
  it("are exactly general category Cc", () => {
    for (const control of ["\u0000", "\t", "\n", "\u001f", "\u007f", "\u0085", "\u009f"])
      expect(hasControlCharacter(`a${control}b`)).toBe(true);
    for (const other of ["\u00a0", "\u200b", "\ufeff", "\u2028"])
      expect(hasControlCharacter(`a${other}b`)).toBe(false);
  });

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

  it("finds unpaired surrogates only", () => {
    expect(hasUnpairedSurrogate("😀")).toBe(false);
    expect(hasUnpairedSurrogate("\ud83d")).toBe(true);
    expect(hasUnpairedSurrogate("\ude00x")).toBe(true);
  });
});
