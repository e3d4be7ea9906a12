import { toNfc } from "@talkide/context-spec/unicode";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { runRender } from "./cli/render-command.ts";
import { parseRenderState } from "./parse.ts";
import { renderClaudeMd, renderContextFiles } from "./render.ts";
import type { RenderState } from "./state.ts";
import {
  blankArb,
  shuffleKeysDeep,
  validStateArb,
  type GeneratedState,
} from "./test-support/arbitraries.ts";
import { workedExample } from "./test-support/fixtures.ts";
import { readLayout } from "./test-support/layout.ts";
import {
  expectedLine,
  expectedOptional,
  expectedQuotedLines,
  expectedSalutation,
  expectedTech,
} from "./test-support/oracle.ts";

const RUNS = { numRuns: 1000 };

function stateOf(input: unknown): RenderState {
  const result = parseRenderState(input);
  if (!result.ok)
    throw new Error(`generated state refused: ${result.error.code} at ${result.error.path}`);
  return result.state;
}

function render(input: unknown): string {
  return renderClaudeMd(stateOf(input));
}

/** Member indexes in roster order, from the generator's own knowledge of each instant. */
function rosterOrder({ state, instants }: GeneratedState): number[] {
  const codePoints = (id: string): number[] =>
    Array.from(toNfc(id), (char) => char.codePointAt(0) ?? 0);
  const compareIds = (a: string, b: string): number => {
    const [x, y] = [codePoints(a), codePoints(b)];
    for (let i = 0; i < Math.min(x.length, y.length); i++)
      if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
    return x.length - y.length;
  };
  return state.team
    .map((_, index) => index)
    .sort((a, b) => {
      const [x, y] = [instants[a], instants[b]];
      if (!x || !y) throw new Error("an instant per member");
      return (
        x.epochSeconds - y.epochSeconds ||
        x.nanoseconds - y.nanoseconds ||
        compareIds(state.team[a]?.id ?? "", state.team[b]?.id ?? "")
      );
    });
}

/** Random sort keys for shuffling: more than any generated state has keys or members. */
const ranksArb = fc.array(fc.double({ noNaN: true }), { minLength: 64, maxLength: 64 });

function cycle(values: ReadonlyArray<number>): () => number {
  let index = 0;
  return () => values[index++ % values.length] ?? 0;
}

/** The static middle of the file, as the worked example shows it. */
const STATIC_LINES = readLayout(render(workedExample())).staticLines;

describe("properties of the rendered CLAUDE.md", () => {
  test.prop([validStateArb()], RUNS)(
    "renders every field where the template puts it",
    (generated) => {
      const { project, team, activeMemberId } = generated.state;
      const layout = readLayout(render(generated.state));
      expect(layout.staticLines).toEqual(STATIC_LINES);
      expect(layout.name).toBe(expectedLine(project.name));
      expect(layout.url).toBe(expectedOptional(project.url, false));
      expect(layout.description).toBe(expectedOptional(project.description, true));
      expect(layout.backend).toBe(
        `${expectedTech(project, "backendLanguage")} / ${expectedTech(project, "backendFramework")}`,
      );
      expect(layout.frontend).toBe(
        `${expectedTech(project, "frontendLanguage")} / ${expectedTech(project, "frontendFramework")}`,
      );
      const ordered = rosterOrder(generated).map((index) => team[index]);
      expect(layout.members.map((member) => member.salutation)).toEqual(
        ordered.map((member) => expectedSalutation(member?.salutation ?? "")),
      );
      const active = team.find((member) => member.id === activeMemberId);
      expect(layout.activeSalutation).toBe(expectedSalutation(active?.salutation ?? ""));
    },
  );

  test.prop([validStateArb()], RUNS)(
    "quotes every briefing line: `>` on each, none left raw",
    (generated) => {
      const layout = readLayout(render(generated.state));
      const ordered = rosterOrder(generated).map((index) => generated.state.team[index]);
      layout.members.forEach((member, position) => {
        const raw = ordered[position];
        if (raw === undefined) throw new Error("one rendered member per input member");
        expect(member.quotedLines).toEqual(expectedQuotedLines(raw));
        for (const line of member.quotedLines)
          expect(line === ">" || line.startsWith("> ")).toBe(true);
      });
    },
  );

  test.prop(
    [
      validStateArb(),
      fc.constantFrom("absent", "null", "blank"),
      fc.constantFrom("absent", "null", "blank"),
      fc.constantFrom("absent", "null", "blank"),
      blankArb,
    ],
    RUNS,
  )(
    "renders the em-dash for an absent, null or blank url, description or briefing",
    (generated, url, description, briefing, blank) => {
      const state = structuredClone(generated.state);
      const set = (target: Record<string, unknown>, key: string, how: string): void => {
        if (how === "absent") Reflect.deleteProperty(target, key);
        else target[key] = how === "null" ? null : blank;
      };
      set(state.project as unknown as Record<string, unknown>, "url", url);
      set(state.project as unknown as Record<string, unknown>, "description", description);
      for (const member of state.team)
        set(member as unknown as Record<string, unknown>, "teamBriefing", briefing);
      const layout = readLayout(render(state));
      expect(layout.url).toBe("—");
      expect(layout.description).toBe("—");
      for (const member of layout.members) expect(member.quotedLines).toEqual(["> —"]);
    },
  );

  test.prop(
    [
      validStateArb(),
      fc.constantFrom(
        "backendLanguage",
        "backendFramework",
        "frontendLanguage",
        "frontendFramework",
      ),
      fc.oneof(
        fc.constant(undefined),
        fc.constant(null),
        blankArb,
        blankArb.map((space) => `${space}—${space}`),
        fc.string(),
      ),
    ],
    RUNS,
  )(
    "never renders the em-dash for a tech-stack field: the default, the value, or a refusal",
    (generated, field, value) => {
      const state = structuredClone(generated.state) as unknown as {
        project: Record<string, unknown>;
      };
      if (value === undefined) Reflect.deleteProperty(state.project, field);
      else state.project[field] = value;
      const result = parseRenderState(state);
      if (!result.ok) {
        expect(result.error).toMatchObject({ code: "invalid_field", path: `project.${field}` });
        return;
      }
      const layout = readLayout(renderClaudeMd(result.state));
      for (const part of [...layout.backend.split(" / "), ...layout.frontend.split(" / ")])
        expect(part).not.toBe("—");
      expect(result.state.project[field]).not.toBe("—");
    },
  );

  test.prop([validStateArb(), ranksArb], RUNS)(
    "ignores the order of the roster in the input",
    (generated, ranks) => {
      const next = cycle(ranks);
      const shuffled = generated.state.team
        .map((member) => ({ member, rank: next() }))
        .sort((a, b) => a.rank - b.rank)
        .map(({ member }) => member);
      expect(render({ ...generated.state, team: shuffled })).toBe(render(generated.state));
    },
  );

  test.prop([validStateArb(), ranksArb], RUNS)(
    "ignores the key order of the input JSON, through the bin's own path",
    (generated, ranks) => {
      const reordered = shuffleKeysDeep(generated.state, cycle(ranks));
      const encode = (value: unknown): Uint8Array =>
        new TextEncoder().encode(JSON.stringify(value));
      const single = { layout: "single", file: "CLAUDE.md" } as const;
      const a = runRender(encode(generated.state), single);
      const b = runRender(encode(reordered), single);
      expect(a.exitCode).toBe(0);
      expect(b).toEqual(a);
    },
  );

  test.prop([validStateArb({ minMembers: 2 }), fc.nat()], RUNS)(
    "changes only the bytes after `# Aktuálně píše` when only activeMemberId changes",
    (generated, pick) => {
      const { team } = generated.state;
      const other = team[pick % team.length]?.id ?? "";
      const before = render(generated.state);
      const after = render({ ...generated.state, activeMemberId: other });
      const marker = "\n# Aktuálně píše\n";
      const cut = before.lastIndexOf(marker) + marker.length;
      expect(after.lastIndexOf(marker) + marker.length).toBe(cut);
      expect(after.slice(0, cut)).toBe(before.slice(0, cut));
      const writer = team.find((member) => member.id === other);
      expect(after.slice(cut)).toBe(`${expectedSalutation(writer?.salutation ?? "")}\n`);
    },
  );

  test.prop([validStateArb()], RUNS)(
    "joining the split files gives the single file exactly",
    (generated) => {
      const state = stateOf(generated.state);
      const single = renderClaudeMd(state);
      const files = renderContextFiles(state, { layout: "split" });
      expect(files.map((file) => file.path)).toEqual(["CLAUDE.md", ".talkide/active-writer.md"]);
      const [claudeMd, activeWriter] = files;
      const importLine = "@.talkide/active-writer.md\n";
      expect(claudeMd?.content.endsWith(`\n\n${importLine}`)).toBe(true);
      expect(claudeMd?.content.indexOf("@.talkide/")).toBe(
        (claudeMd?.content.length ?? 0) - importLine.length,
      );
      const joined =
        (claudeMd?.content ?? "").slice(0, -importLine.length) + (activeWriter?.content ?? "");
      expect(joined).toBe(single);
      expect(renderContextFiles(state, { layout: "single" })).toEqual([
        { path: "CLAUDE.md", content: single },
      ]);
    },
  );

  test.prop([validStateArb(), fc.string({ minLength: 1, maxLength: 4 })], RUNS)(
    "never renders ids or timestamps: renaming every id (keeping the order) changes no byte",
    (generated, suffix) => {
      // Appending the same suffix keeps the code-point order of ids that are not prefixes of
      // each other; prefix pairs are excluded so the roster order stays the same.
      const ids = generated.state.team.map((member) => toNfc(member.id));
      fc.pre(ids.every((a) => ids.every((b) => a === b || !b.startsWith(a))));
      fc.pre(suffix.isWellFormed());
      const renamed = {
        ...generated.state,
        team: generated.state.team.map((member) => ({ ...member, id: `${member.id}${suffix}` })),
        activeMemberId: `${generated.state.activeMemberId}${suffix}`,
      };
      expect(render(renamed)).toBe(render(generated.state));
    },
  );
});
