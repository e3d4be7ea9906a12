import { describe, expect, it } from "vitest";
import { toMultiLineText, toSingleLineText, toWellFormedNfc } from "./user-text.ts";

describe("user text of a prompt", () => {
  it("multi-line: line breaks unified, controls replaced, trimmed", () => {
    expect(toMultiLineText(" \r\na\r\nb\rc\u2028d\u0085e\u000bf\u000cg\u001b\u0000\t \n")).toBe(
      "a\nb\nc\nd\ne\nf\ng\uFFFD\uFFFD",
    );
  });

  it("single-line: white space runs collapsed, controls replaced, trimmed", () => {
    expect(toSingleLineText("\u3000 a \n\t b\u2029c\u001b ")).toBe("a b c\uFFFD");
  });

  it("keeps U+FEFF at the ends: it is not white space", () => {
    expect(toMultiLineText("\ufeff a \ufeff")).toBe("\ufeff a \ufeff");
    expect(toSingleLineText(" \ufeffa\ufeff ")).toBe("\ufeffa\ufeff");
  });

  it("repairs unpaired surrogates, then composes", () => {
    expect(toWellFormedNfc("A\u030a\ud800")).toBe("\u00c5\ufffd");
  });
});
