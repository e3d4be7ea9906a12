import { describe, expect, it } from "vitest";
import { confusableSkeleton } from "./0009-confusable-skeleton.ts";
import { normalizeRenderState, toRfc3339, type NormalizableState } from "./0009-render-state.ts";
import { startsWithUnicode13Letter, toLowerCaseDefault, toNfc } from "./0009-unicode-13.ts";

// The frozen copies answer as the live rules did when 0009 shipped (checked against them then:
// 20,000 random strings for the skeleton and the Unicode 13.0.0 rules, 60,000 random render
// states, 5,195 of them accepted, all alike). These answers were recorded from the live code.

describe("0009's frozen confusable skeleton", () => {
  it("maps look-alikes to one skeleton, keeps case, drops what shows as nothing", () => {
    expect(confusableSkeleton("Anna")).toBe("Anna");
    expect(confusableSkeleton("\u0410nna")).toBe("Anna");
    expect(confusableSkeleton("An\u200bna")).toBe("Anna");
    expect(confusableSkeleton("m")).toBe("rn");
    expect(confusableSkeleton("Ian")).toBe("lan");
    expect(confusableSkeleton("ian")).toBe("ian");
    expect(confusableSkeleton("Zo\u00eb")).toBe("Zoe\u0308");
  });
});

describe("0009's frozen Unicode 13.0.0 rules", () => {
  it("treats a code point Unicode 13.0.0 left unassigned as it did", () => {
    // U+1E900 (Adlam) was assigned in 9.0.0; U+31350 (CJK Ext. H) only in 15.0.0, which the
    // runtime knows as a letter.
    expect(startsWithUnicode13Letter("\u{1E900}")).toBe(true);
    expect(startsWithUnicode13Letter("\u{31350}x")).toBe(false);
    expect(toLowerCaseDefault("\u{31350}ABC")).toBe("\u{31350}abc");
    expect(toNfc("A\u030a")).toBe("\u00c5");
  });
});

describe("0009's frozen render-state normalization", () => {
  const state = (overrides: Partial<NormalizableState["project"]> = {}): NormalizableState => ({
    project: {
      id: 1,
      name: "\u00a0Peka\u0301rna u Jelena\u2028",
      url: " https://pekarna.example/\u0085",
      description: "E-shop pro\n\n malou  peka\u0301rnu ",
      backendLanguage: "Kotlin\u3000",
      backendFramework: "Spring Boot",
      frontendLanguage: "TypeScript",
      frontendFramework: "Vue.js",
      ...overrides,
    },
    team: [
      { id: "b", createdAt: "2026-11-02T10:00:00.000000Z", salutation: " Bob", teamBriefing: null },
      {
        id: "a",
        createdAt: "2026-11-01T10:00:00.000000Z",
        salutation: "Anna\u2028",
        teamBriefing: "Owner.\r\n\r\nBakes  \n\n",
      },
    ],
    activeMemberId: "b",
  });

  it("normalizes a stored project and its team, in roster order", () => {
    expect(normalizeRenderState(state())).toEqual({
      project: {
        id: 1,
        name: "Pekárna u Jelena",
        url: "https://pekarna.example/",
        description: "E-shop pro malou pekárnu",
        backendLanguage: "Kotlin",
        backendFramework: "Spring Boot",
        frontendLanguage: "TypeScript",
        frontendFramework: "Vue.js",
      },
      team: [
        {
          id: "a",
          createdAt: "2026-11-01T10:00:00.000000Z",
          salutation: "Anna",
          teamBriefing: "Owner.\n\nBakes",
        },
        {
          id: "b",
          createdAt: "2026-11-02T10:00:00.000000Z",
          salutation: "Bob",
          teamBriefing: null,
        },
      ],
      activeMemberId: "b",
    });
  });

  it("refuses what the renderer refused then", () => {
    expect(normalizeRenderState(state({ name: " \u2028 " }))).toBeNull();
    expect(normalizeRenderState(state({ url: "ftp://x.example" }))).toBeNull();
    expect(normalizeRenderState(state({ backendLanguage: "\u2014" }))).toBeNull();
    expect(normalizeRenderState(state({ description: "a\u0000b" }))).toBeNull();
    const base = state();
    const withTeam = (team: NormalizableState["team"]) => ({ ...base, team });
    const [bob, anna] = base.team as [NormalizableState["team"][0], NormalizableState["team"][0]];
    expect(normalizeRenderState(withTeam([bob, { ...anna, salutation: "BOB" }]))).toBeNull();
    expect(normalizeRenderState(withTeam([bob, { ...anna, salutation: "1st" }]))).toBeNull();
    expect(normalizeRenderState(withTeam([bob, { ...anna, salutation: 'A"' }]))).toBeNull();
    expect(
      normalizeRenderState(withTeam([bob, { ...anna, createdAt: "2026-02-30T10:00:00Z" }])),
    ).toBeNull();
    expect(normalizeRenderState(withTeam([bob, { ...anna, id: "b" }]))).toBeNull();
    expect(normalizeRenderState({ ...base, activeMemberId: "c" })).toBeNull();
  });

  it("reads PostgreSQL's UTC text as the backend did", () => {
    expect(toRfc3339("2026-05-02 14:32:11.12345+00")).toBe("2026-05-02T14:32:11.123450Z");
    expect(() => toRfc3339("2026-05-02T14:32:11Z")).toThrow(/TimeZone=UTC/);
  });
});
