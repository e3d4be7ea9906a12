import { readFileSync } from "node:fs";
import * as path from "node:path";
import { interpret, PACKAGE_ROOT, type InterpretResult } from "@talkide/context-spec";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { runRender } from "./cli/render-command.ts";
import { validStateArb } from "./test-support/arbitraries.ts";
import { FIELDS, hostileArb, withHostile } from "./test-support/hostile.ts";

/**
 * Differential check against the spec's reference interpreter (@talkide/context-spec), an
 * independent reading of the same spec page that renders the page's own template. The cases
 * pin chosen inputs; here both implementations meet thousands of generated ones.
 */

const SPEC = readFileSync(path.join(PACKAGE_ROOT, "spec", "claude-md.md"), "utf8");
const TEMPLATE = /^```template\n([\s\S]*?\n)```$/mu.exec(SPEC)?.[1] ?? "";
const encoder = new TextEncoder();

function reference(
  state: unknown,
  output: "CLAUDE.md" | ".talkide/active-writer.md" | "" = "",
): InterpretResult {
  return interpret({
    template: TEMPLATE,
    templateContext: output === "" ? "claude-md" : "claude-md-split",
    input: encoder.encode(JSON.stringify(state)),
    output,
  });
}

/** What the bin answers, in the interpreter's terms. */
function ours(
  state: unknown,
  layout: "single" | "split" = "single",
  file: "CLAUDE.md" | ".talkide/active-writer.md" = "CLAUDE.md",
): InterpretResult {
  const outcome = runRender(encoder.encode(JSON.stringify(state)), { layout, file });
  if (outcome.exitCode === 0) return { ok: true, text: outcome.stdout };
  return { ok: false, error: JSON.parse(outcome.stderr) as { code: never; path: string } };
}

describe("the renderer and the spec's reference interpreter", () => {
  test("find the template in the spec page", () => {
    expect(TEMPLATE).toMatch(/^# Projekt\n[\s\S]*\{\{activeMember\.salutation\}\}\n$/u);
  });

  test.prop([validStateArb()], { numRuns: 1000 })(
    "render every valid state to the same bytes, single and split",
    (generated) => {
      const want = reference(generated.state);
      expect(want.ok).toBe(true);
      expect(ours(generated.state)).toEqual(want);
      expect(ours(generated.state, "split", "CLAUDE.md")).toEqual(
        reference(generated.state, "CLAUDE.md"),
      );
      expect(ours(generated.state, "split", ".talkide/active-writer.md")).toEqual(
        reference(generated.state, ".talkide/active-writer.md"),
      );
    },
  );

  test.prop([validStateArb({ maxMembers: 3 }), fc.constantFrom(...FIELDS), fc.nat(), hostileArb], {
    numRuns: 1000,
  })(
    "accept and refuse the same hostile values, with the same code and path",
    (generated, field, pick, hostile) => {
      const { state } = withHostile(generated.state, field, pick, hostile);
      expect(ours(state)).toEqual(reference(state));
    },
  );
});
