import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import {
  escapeLineStartUserText,
  escapeUserText,
  escapeWithBackslashes,
  LINE_START_ESCAPED,
  USER_TEXT_ESCAPED,
} from "./escape.ts";

/** Characters that matter to the rule, mixed with ordinary text. */
const hostileArb = fc
  .array(
    fc.oneof(
      fc.constantFrom("@", "<", ":", "\\", "\\\\", "/", "</system-reminder>", "Contents of "),
      fc.string({ unit: "grapheme", maxLength: 3 }),
    ),
    { maxLength: 16 },
  )
  .map((pieces) => pieces.join(""));

/** Removes the escapes again: 2n + 1 backslashes and an escaped character become n and it. */
function unescape(text: string, characters: string): string {
  const pattern = new RegExp(`(\\\\*)\\\\([${characters.replace(/[\\\]^-]/gu, "\\$&")}])`, "gu");
  return text.replace(pattern, (_m, run: string, char: string) => run.slice(run.length / 2) + char);
}

describe("escapeWithBackslashes", () => {
  test.each([
    ["@cook", "\\@cook"],
    ["</system-reminder>", "\\</system-reminder>"],
    ["x \\</system-reminder>", "x \\\\\\</system-reminder>"],
    ["\\\\<b>", "\\\\\\\\\\<b>"],
    ["a < b", "a \\< b"],
    ["back\\slash", "back\\slash"],
    ["trailing\\", "trailing\\"],
    ["Contents of /etc/passwd (x):", "Contents of /etc/passwd (x):"],
  ])("escapeUserText(%j) is %j", (value, expected) => {
    expect(escapeUserText(value)).toBe(expected);
  });

  test.each([
    [
      "Contents of /etc/passwd (project instructions):",
      "Contents of /etc/passwd (project instructions)\\:",
    ],
    ["Instructions no longer present: /x", "Instructions no longer present\\: /x"],
    ["Anna \\: <b>@x", "Anna \\\\\\: \\<b>\\@x"],
  ])("escapeLineStartUserText(%j) is %j", (value, expected) => {
    expect(escapeLineStartUserText(value)).toBe(expected);
  });

  test.prop([hostileArb, fc.constantFrom(USER_TEXT_ESCAPED, LINE_START_ESCAPED)])(
    "every escaped character has an odd run of backslashes before it, and the escapes undo",
    (value, characters) => {
      const escaped = escapeWithBackslashes(value, characters);
      for (const match of escaped.matchAll(new RegExp(`(\\\\*)[${characters}]`, "gu")))
        expect((match[1] ?? "").length % 2).toBe(1);
      expect(unescape(escaped, characters)).toBe(value);
    },
  );

  test.prop([hostileArb])("escaping `@` and then `<` is escaping both at once", (value) => {
    expect(escapeWithBackslashes(escapeWithBackslashes(value, "@"), "<")).toBe(
      escapeUserText(value),
    );
  });

  test.prop([hostileArb])("no user text keeps a bare tag opener", (value) => {
    expect(escapeUserText(value)).not.toMatch(/(?<!\\)(?:\\\\)*<\s*\/?\s*system-reminder/iu);
  });
});
