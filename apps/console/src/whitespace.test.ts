import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { isInvisible, revealInvisible, utf8Bytes } from "./whitespace.ts";

describe("revealInvisible", () => {
  it("marks spaces, tabs, line ends and zero-width characters, keeping line breaks", () => {
    const pieces = revealInvisible("a b\t\u200b\n");
    expect(pieces.map((p) => p.text).join("")).toBe("a·b→⟨U+200B⟩↵\n");
    expect(pieces.filter((p) => p.label !== null).map((p) => p.label)).toEqual([
      "space",
      "tab",
      "zero width space",
      "line feed",
    ]);
  });

  it("names a byte order mark and a bidi override by what they are", () => {
    const pieces = revealInvisible("\ufeffx\u202e");
    expect(pieces.map((p) => p.label)).toEqual(["byte order mark", null, "U+202E"]);
  });

  test.prop([fc.string({ unit: "binary", maxLength: 300 })])(
    "the raw pieces give back the input exactly",
    (text) => {
      expect(
        revealInvisible(text)
          .map((p) => p.raw)
          .join(""),
      ).toBe(text);
    },
  );

  test.prop([fc.string({ unit: "binary", maxLength: 300 })])(
    "nothing invisible is left in the shown text but the line breaks, one per line feed",
    (text) => {
      const shown = revealInvisible(text)
        .map((p) => p.text)
        .join("");
      const invisibleLeft = Array.from(shown).filter((c) => isInvisible(c));
      expect(invisibleLeft.every((c) => c === "\n")).toBe(true);
      expect(invisibleLeft.length).toBe(Array.from(text).filter((c) => c === "\n").length);
    },
  );

  it("counts UTF-8 bytes", () => {
    expect(utf8Bytes("Aktuálně")).toBe(10);
  });
});
