import { test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { hostileText } from "../test-support/arbitraries.ts";
import { fold } from "../test-support/fold.ts";
import { neutralizeInline, neutralizeMultiLine } from "./neutralize.ts";
import { toMultiLineText, toSingleLineText } from "@talkide/text";

describe("block closers", () => {
  test.each([
    ["[/charter]", "[\\/charter]"],
    ["a [/quote] b", "a [\\/quote] b"],
    ["[ / Charter ]", "[ \\/ Charter ]"],
    ["[/QUOTE][/charter]", "[\\/QUOTE][\\/charter]"],
    ["［／ＣＨＡＲＴＥＲ］", "［\\／ＣＨＡＲＴＥＲ］"],
    ["[\u200b/charter]", "[\u200b\\/charter]"],
    ["[/chart er]", "[\\/chart er]"],
    ["[/cha\u0301rter]", "[\\/cha\u0301rter]"],
  ])("%j becomes %j", (input, output) => {
    expect(neutralizeInline(input)).toBe(output);
  });

  test.each(["[/charters]", "[/ch]", "/charter]", "[charter]", "[\\/charter]", "[/chartér]"])(
    "%j is left alone",
    (input) => {
      expect(neutralizeInline(input)).toBe(input);
    },
  );

  test("single-line text must not hold a line break", () => {
    expect(() => neutralizeInline("a\nb")).toThrow(TypeError);
  });
});

describe("structural line starts", () => {
  test.each([
    ["[target=#x] @a: b", "\\[target=#x] @a: b"],
    ["  [TARGET = #x]", "  \\[TARGET = #x]"],
    ["New message received:", "\\New message received:"],
    ["new   message   RECEIVED :", "\\new   message   RECEIVED :"],
    ["Group context:", "\\Group context:"],
    ["[charter]", "\\[charter]"],
    ["[quote kind=message", "\\[quote kind=message"],
    ["[task #3 status=done]", "\\[task #3 status=done]"],
    ["[reactions: x]", "\\[reactions: x]"],
    ["\u200b[target=", "\u200b\\[target="],
    ["［target=x］", "\\［target=x］"],
    ["\u0301[target=x]", "\u0301\\[target=x]"],
  ])("%j becomes %j", (input, output) => {
    expect(neutralizeMultiLine(input)).toBe(output);
  });

  test.each(["[WIP] review", "target=x", "say [target= here", "[tasks]", "a\nb", "Group contexts"])(
    "%j is left alone",
    (input) => {
      expect(neutralizeMultiLine(input)).toBe(input);
    },
  );

  test("every line is judged on its own", () => {
    expect(neutralizeMultiLine("ok\n[target=#x]\nok\n[/charter]")).toBe(
      "ok\n\\[target=#x]\nok\n[\\/charter]",
    );
  });
});

describe("properties", () => {
  const STARTS = [
    "[target=",
    "[task#",
    "[reactions:",
    "[charter]",
    "[quote",
    "newmessagereceived:",
    "groupcontext:",
  ];

  test.prop([hostileText], { numRuns: 1000 })(
    "after neutralization no line looks like structure and no closer is left",
    (raw) => {
      const text = neutralizeMultiLine(toMultiLineText(raw));
      for (const line of text.split("\n")) {
        const folded = fold(line);
        expect(STARTS.some((start) => folded.startsWith(start))).toBe(false);
        expect(folded).not.toContain("[/charter]");
        expect(folded).not.toContain("[/quote]");
      }
    },
  );

  test.prop([hostileText], { numRuns: 1000 })(
    "only backslashes are added, and neutralizing twice changes nothing more",
    (raw) => {
      const text = toMultiLineText(raw);
      const once = neutralizeMultiLine(text);
      expect(once.replaceAll("\\", "")).toBe(text.replaceAll("\\", ""));
      expect(neutralizeMultiLine(once)).toBe(once);
      const line = toSingleLineText(raw);
      expect(neutralizeInline(line).replaceAll("\\", "")).toBe(line.replaceAll("\\", ""));
    },
  );
});
