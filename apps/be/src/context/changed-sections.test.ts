import { fc } from "@fast-check/vitest";
import { parseRenderState, renderContextFiles } from "@talkide/renderer";
import { describe, expect, it } from "vitest";
import { changedSections } from "./changed-sections.ts";

interface State {
  project: { id: number; name: string; url: string | null; description: string | null };
  team: Array<{ id: string; createdAt: string; salutation: string; teamBriefing: string | null }>;
  activeMemberId: string;
}

const BASE: State = {
  project: { id: 2, name: "Pekárna u Jelena", url: null, description: "E-shop pro malou pekárnu" },
  team: [
    { id: "a", createdAt: "2026-12-01T10:00:00Z", salutation: "Anna", teamBriefing: "Pinia." },
    { id: "b", createdAt: "2026-12-01T11:00:00Z", salutation: "Bob", teamBriefing: "Vue 3." },
  ],
  activeMemberId: "a",
};

/** The files as the backend writes them, by path, for one layout. */
function rendered(state: State, layout: "split" | "single"): Map<string, string> {
  const parsed = parseRenderState(state);
  if (!parsed.ok) throw new Error(parsed.error.code);
  return new Map(renderContextFiles(parsed.state, { layout }).map((f) => [f.path, f.content]));
}

/** Every phrase of every file that differs between two states, in file order. */
function phrases(before: State, after: State, layout: "split" | "single"): readonly string[] {
  const old = rendered(before, layout);
  return [...rendered(after, layout)].flatMap(([path, content]) =>
    changedSections(old.get(path) ?? null, content),
  );
}

describe("changedSections", () => {
  for (const layout of ["single", "split"] as const) {
    it(`names a change of the active writer (${layout})`, () => {
      expect(phrases(BASE, { ...BASE, activeMemberId: "b" }, layout)).toEqual([
        "the active writer changed",
      ]);
    });

    it(`names a new member in the roster (${layout})`, () => {
      const team = [
        ...BASE.team,
        { id: "c", createdAt: "2026-12-02T09:00:00Z", salutation: "Cyril", teamBriefing: null },
      ];
      expect(phrases(BASE, { ...BASE, team }, layout)).toEqual(["the roster section changed"]);
    });

    it(`names a member's changed briefing as a briefing (${layout})`, () => {
      const team = BASE.team.map((m) => (m.id === "b" ? { ...m, teamBriefing: "Nuxt." } : m));
      expect(phrases(BASE, { ...BASE, team }, layout)).toEqual(["a briefing changed"]);
    });

    it(`names the project's description and the writer together, in file order (${layout})`, () => {
      const after = {
        ...BASE,
        project: { ...BASE.project, description: "Objednávky chleba" },
        activeMemberId: "b",
      };
      const named = phrases(BASE, after, layout);
      expect([...named].sort()).toEqual(
        ["the active writer changed", "the project's description changed"].sort(),
      );
    });
  }

  it("names nothing for an unchanged file or a new one (a new session reads it anyway)", () => {
    const [content] = rendered(BASE, "single").values();
    expect(changedSections(content ?? "", content ?? "")).toEqual([]);
    expect(changedSections(null, content ?? "")).toEqual([]);
  });

  it("names each section at most once, and only sections it knows", () => {
    const line = fc.string({ maxLength: 12 }).filter((s) => !s.includes("\n"));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.array(line, { maxLength: 8 }), (a, b) => {
        const named = changedSections(
          ["# Projekt", ...a, "# Tým", ...b].join("\n"),
          ["# Projekt", ...b, "# Tým", ...a].join("\n"),
        );
        expect(new Set(named).size).toBe(named.length);
        for (const phrase of named) {
          expect([
            "the project's description changed",
            "the roster section changed",
            "a briefing changed",
          ]).toContain(phrase);
        }
      }),
    );
  });
});
