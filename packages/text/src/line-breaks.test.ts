import { describe, expect, it } from "vitest";
import { unifyLineBreaks } from "./line-breaks.ts";

describe("line breaks", () => {
  it("turns every line break kind of CLAUDE.md into one line feed, not \\v nor \\f", () => {
    expect(unifyLineBreaks("a\r\nb\rc\u0085d\u2028e\u2029f\n\r")).toBe("a\nb\nc\nd\ne\nf\n\n");
    expect(unifyLineBreaks("a\u000bb\u000cc")).toBe("a\u000bb\u000cc");
  });

  it("also turns \\v and \\f into line feeds for the wake prompt's multi-line rule", () => {
    expect(unifyLineBreaks("a\r\nb\u000bc\u000cd\u0085e", { verticalTabAndFormFeed: true })).toBe(
      "a\nb\nc\nd\ne",
    );
  });
});
