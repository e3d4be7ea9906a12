import { startsWithUnicode13Letter } from "@talkide/context-spec/unicode";
import { describe, expect, it } from "vitest";

// The other character rules (white space, control characters, line breaks, code points) are
// @talkide/text's and tested there; the letter rule is bound to Unicode 13.0.0 by the spec's
// own data, in @talkide/context-spec.
describe("the first character of a salutation", () => {
  it("knows a letter of any script", () => {
    for (const letter of ["A", "ž", "Ж", "漢", "م", "𝔘", "ǅ"])
      expect(startsWithUnicode13Letter(`${letter}x`)).toBe(true);
    // "\u0870" is a letter since Unicode 14: the spec's rules are bound to Unicode 13.0.0.
    for (const other of ["1", "#", ">", "-", "\u0301a", "😀", " ", "\u0870"])
      expect(startsWithUnicode13Letter(other)).toBe(false);
  });
});
