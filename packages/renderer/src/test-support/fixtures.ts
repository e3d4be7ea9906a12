import type { RawState } from "./arbitraries.ts";

/** The contract's worked example (section 1.1), as the render state the backend would send. */
export function workedExample(): RawState {
  return {
    project: {
      id: 7,
      name: "Pekárna u Jelena",
      url: null,
      description: "E-shop pro\nmalou pekárnu",
    },
    team: [
      {
        id: "m2",
        createdAt: "2026-05-02T14:32:11.500Z",
        salutation: "Anna",
        teamBriefing: "Preferuji Pinia.\r\n\r\nTesty piš ve Vitestu.  ",
      },
      { id: "m1", createdAt: "2026-05-02T14:32:11Z", salutation: "Jirka", teamBriefing: "" },
    ],
    activeMemberId: "m2",
  };
}

/** A copy of the worked example changed by `edit`, for single-fault tests. */
export function exampleWith(edit: (state: RawState & Record<string, unknown>) => void): unknown {
  const state = structuredClone(workedExample()) as RawState & Record<string, unknown>;
  edit(state);
  return state;
}

/** `count` members with distinct ids, salutations and instants. */
export function teamOf(count: number, briefingLines = 1): RawState["team"] {
  return Array.from({ length: count }, (_, index) => ({
    id: `m${index + 1}`,
    createdAt: `2026-05-02T14:${String(index % 60).padStart(2, "0")}:11.${String(index).padStart(3, "0")}+02:00`,
    salutation: `Člen${index + 1}`,
    teamBriefing: Array.from({ length: briefingLines }, (_, line) =>
      line % 5 === 4 ? "" : `Řádek ${line + 1}: preferuji Pinia, testy ve Vitestu a \`pnpm\`.`,
    ).join("\n"),
  }));
}
