import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { formatTarget, parseTarget } from "./targets.ts";

const safeChar = fc.constantFrom(...Array.from("abcXYZ019._-éßж中")); // letters of several scripts, digits, . _ -
const token = fc.array(safeChar, { minLength: 1, maxLength: 64 }).map((cs) => cs.join(""));

describe("parseTarget", () => {
  it("reads the four forms of the wake prompt and the DM id fallback", () => {
    expect(parseTarget("#general")).toEqual({
      parent: { kind: "group", ref: "general" },
      root: null,
    });
    expect(parseTarget("#general:a1b2c3d4")).toEqual({
      parent: { kind: "group", ref: "general" },
      root: "a1b2c3d4",
    });
    expect(parseTarget("dm:@cook")).toEqual({
      parent: { kind: "dm-peer", handle: "cook" },
      root: null,
    });
    expect(parseTarget("dm:@cook:x9y8z7a0")).toEqual({
      parent: { kind: "dm-peer", handle: "cook" },
      root: "x9y8z7a0",
    });
    expect(parseTarget("dm:d-0123456789")).toEqual({
      parent: { kind: "dm-id", id: "d-0123456789" },
      root: null,
    });
    expect(parseTarget(" #général ")).toEqual({
      parent: { kind: "group", ref: "général" },
      root: null,
    });
  });

  it.each([
    "general",
    "#",
    "#a b",
    "#a:",
    "#a:b:c",
    "dm:@",
    "dm:@a:b:c",
    "dm:",
    "@cook",
    '#a"; rm -rf /',
    "#a$(id)",
    `#${"x".repeat(65)}`,
  ])("refuses %j with invalid_target", (input) => {
    expect(() => parseTarget(input)).toThrow(expect.objectContaining({ code: "invalid_target" }));
  });

  test.prop(
    [fc.constantFrom("group", "dm-peer", "dm-id"), token, fc.option(token, { nil: null })],
    { numRuns: 1000 },
  )("formatTarget and parseTarget are inverse on safe names", (kind, name, root) => {
    const parent =
      kind === "group"
        ? ({ kind, ref: name } as const)
        : kind === "dm-peer"
          ? ({ kind, handle: name } as const)
          : ({ kind, id: name } as const);
    expect(parseTarget(formatTarget(parent, root))).toEqual({ parent, root });
  });
});
