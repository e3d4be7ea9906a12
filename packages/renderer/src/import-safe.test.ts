import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { escapeUserText as importSafe } from "@talkide/text";
import { parseRenderState } from "./parse.ts";
import { renderClaudeMd, renderContextFiles } from "./render.ts";
import { ACTIVE_WRITER_IMPORT } from "./template.ts";
import { validStateArb } from "./test-support/arbitraries.ts";

// spec/claude-md.md, "User text loads no file": Claude Code follows an `@path` that starts a
// piece of Markdown text (after white space, at a line start, or right after inline markup),
// so no `@` of user text may reach CLAUDE.md unescaped. The wire test in apps/be
// (src/wire-imports.test.ts) shows the real CLI loading nothing; these properties hold the
// rule for every value.

/** Pieces that make `@` dangerous: markup that cuts a line, backslashes, spaces of every kind. */
const PIECES = [
  "@",
  "@",
  "\\",
  "\\\\",
  "poznamky.md",
  "*x*",
  "**x**",
  "_x_",
  "`x`",
  "<b>x</b>",
  "[x](y)",
  "![a](b)",
  "<!-- c -->",
  "<https://x.cz/>",
  " ",
  "\u00a0",
  "\u3000",
  "a",
  "~/",
  "../",
  "/",
  "#x",
];
const lineArb = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 12 })
  .map((p) => p.join(""));
const briefingArb = fc
  .array(lineArb, { minLength: 1, maxLength: 6 })
  .map((lines) => lines.join("\n"));

/** A valid state whose every user value is full of `@`, backslashes and inline markup. */
const atStateArb = fc
  .record({
    base: validStateArb({ maxMembers: 3 }),
    name: lineArb,
    url: lineArb.map((tail) => `https://x.cz/${tail.replace(/\s/gu, "")}`),
    description: lineArb,
    tech: fc.array(lineArb, { minLength: 4, maxLength: 4 }),
    salutations: fc.array(lineArb, { minLength: 3, maxLength: 3 }),
    briefings: fc.array(briefingArb, { minLength: 3, maxLength: 3 }),
  })
  .map(({ base, name, url, description, tech, salutations, briefings }) => {
    // A letter first keeps each value non-blank; the contract allows at most 100 characters
    // (12 pieces of markup can make more).
    const [backendLanguage, backendFramework, frontendLanguage, frontendFramework] = tech.map(
      (value) => `T${value}`.slice(0, 100),
    );
    return {
      project: {
        id: base.state.project.id,
        name: `N${name}`,
        url,
        description,
        backendLanguage,
        backendFramework,
        frontendLanguage,
        frontendFramework,
      },
      team: base.state.team.map((member, index) => ({
        ...member,
        // A letter first and an index keep the salutation valid and unique.
        salutation: `S${String(index)}${salutations[index] ?? ""}`.slice(0, 64),
        teamBriefing: briefings[index] ?? null,
      })),
      activeMemberId: base.state.activeMemberId,
    };
  });

/** Every `@` stands behind an odd run of backslashes: a CommonMark escape, never a bare `@`. */
function bareAtSigns(text: string): string[] {
  return [...text.matchAll(/(?<!\\)(?:\\\\)*@/gu)].map((match) => {
    const start = Math.max(0, match.index - 20);
    return JSON.stringify(text.slice(start, match.index + 20));
  });
}

function renderedOrFail(input: unknown) {
  const result = parseRenderState(input);
  if (!result.ok)
    throw new Error(`generated state refused: ${result.error.code} at ${result.error.path}`);
  return result.state;
}

describe("no user value can import a file", () => {
  test.prop([atStateArb], { numRuns: 500 })(
    "the single file has no bare @, and nothing Claude Code's import finder would follow",
    (input) => {
      const output = renderClaudeMd(renderedOrFail(input));
      expect(bareAtSigns(output)).toEqual([]);
      // The runtime's own pattern (2.1.330): `@` at a line start or after white space.
      expect(output).not.toMatch(/(?:^|\s)@/mu);
    },
  );

  test.prop([atStateArb], { numRuns: 300 })(
    "in the split form the template's import line is the only bare @",
    (input) => {
      const files = renderContextFiles(renderedOrFail(input), { layout: "split" });
      for (const file of files) {
        const text =
          file.path === "CLAUDE.md"
            ? file.content.slice(0, -ACTIVE_WRITER_IMPORT.length)
            : file.content;
        if (file.path === "CLAUDE.md")
          expect(file.content.endsWith(ACTIVE_WRITER_IMPORT)).toBe(true);
        expect(bareAtSigns(text)).toEqual([]);
      }
    },
  );

  test.prop([fc.string({ unit: fc.constantFrom("@", "\\", "a", " ", "*", "`") })])(
    "a Markdown reader gets the user's characters back: only `\\\\` and `\\@` pairs are escapes",
    (value) => {
      const safe = importSafe(value);
      expect(bareAtSigns(safe)).toEqual([]);
      // Reading CommonMark escapes inside each backslash run that ends in `@`.
      const read = safe.replace(
        /(\\+)@/gu,
        (_m, run: string) => `${"\\".repeat((run.length - 1) / 2)}@`,
      );
      expect(read).toBe(value);
    },
  );

  test.prop([fc.string()])("a value without @ and < is written unchanged", (value) => {
    fc.pre(!value.includes("@") && !value.includes("<"));
    expect(importSafe(value)).toBe(value);
  });
});
