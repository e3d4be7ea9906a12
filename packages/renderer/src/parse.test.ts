import { ROSTER_ALLOWLIST } from "@talkide/privacy";
import { describe, expect, it } from "vitest";
import { parseRenderState } from "./parse.ts";
import { exampleWith, teamOf, workedExample } from "./test-support/fixtures.ts";

function errorOf(input: unknown): { code: string; path: string } {
  const result = parseRenderState(input);
  if (result.ok) throw new Error("expected the state to be refused");
  return { code: result.error.code, path: result.error.path };
}

function stateOf(input: unknown) {
  const result = parseRenderState(input);
  if (!result.ok)
    throw new Error(`expected a valid state, got ${result.error.code} at ${result.error.path}`);
  return result.state;
}

describe("parseRenderState: normalization", () => {
  it("normalizes the worked example as the contract says", () => {
    const state = stateOf(workedExample());
    expect(state.project).toEqual({
      id: 7,
      name: "Pekárna u Jelena",
      url: null,
      description: "E-shop pro malou pekárnu",
      backendLanguage: "Kotlin",
      backendFramework: "Spring Boot",
      frontendLanguage: "TypeScript",
      frontendFramework: "Vue.js",
    });
    expect(state.team).toEqual([
      { id: "m1", createdAt: "2026-05-02T14:32:11Z", salutation: "Jirka", teamBriefing: null },
      {
        id: "m2",
        createdAt: "2026-05-02T14:32:11.500Z",
        salutation: "Anna",
        teamBriefing: "Preferuji Pinia.\n\nTesty piš ve Vitestu.",
      },
    ]);
    expect(state.activeMemberId).toBe("m2");
  });

  it("gives every member exactly the allowlisted keys", () => {
    for (const member of stateOf(workedExample()).team) {
      expect(Object.keys(member).sort()).toEqual(Object.keys(ROSTER_ALLOWLIST).sort());
    }
  });

  it("converts every string to NFC before anything else", () => {
    const state = stateOf(
      exampleWith((s) => {
        s.project.name = "Peka\u0301rna";
        s.team[0] = { id: "e\u0301", createdAt: "2026-05-02T14:32:12Z", salutation: "A\u0301ja" };
        s.activeMemberId = "\u00e9";
      }),
    );
    expect(state.project.name).toBe("Pekárna");
    expect(state.team[1]).toMatchObject({ id: "\u00e9", salutation: "\u00c1ja" });
  });

  it("counts lengths in code points after NFC and before trimming", () => {
    expect(parseRenderState(exampleWith((s) => (s.project.name = "😀".repeat(200)))).ok).toBe(true);
    expect(errorOf(exampleWith((s) => (s.project.name = "😀".repeat(201))))).toEqual({
      code: "invalid_field",
      path: "project.name",
    });
    // 200 code points in NFD, fewer after NFC: the NFC count decides.
    expect(parseRenderState(exampleWith((s) => (s.project.name = "e\u0301".repeat(200)))).ok).toBe(
      true,
    );
    // Padding counts: 199 letters and two spaces are 201 characters before trimming.
    expect(errorOf(exampleWith((s) => (s.project.name = ` ${"a".repeat(199)} `)))).toEqual({
      code: "invalid_field",
      path: "project.name",
    });
    // \r\n counts as two characters: it is counted before it becomes \n.
    expect(
      parseRenderState(
        exampleWith((s) => s.team[0] && (s.team[0].teamBriefing = `${"x\r\n".repeat(2666)}xy`)),
      ).ok,
    ).toBe(true);
    expect(
      errorOf(
        exampleWith((s) => s.team[0] && (s.team[0].teamBriefing = `${"x\r\n".repeat(2666)}xyz`)),
      ),
    ).toEqual({
      code: "invalid_field",
      path: "team[0].teamBriefing",
    });
  });

  it("trims single-line fields before checking them for controls", () => {
    const state = stateOf(
      exampleWith((s) => {
        s.project.name = "\u3000Pekárna\n";
        s.project.backendLanguage = "\tJava\u2028";
        s.project.url = "  https://pekarna.example/  ";
      }),
    );
    expect(state.project).toMatchObject({
      name: "Pekárna",
      backendLanguage: "Java",
      url: "https://pekarna.example/",
    });
    expect(errorOf(exampleWith((s) => (s.project.name = "Pe\nkárna")))).toEqual({
      code: "invalid_field",
      path: "project.name",
    });
  });

  it("collapses the description and drops it when blank", () => {
    expect(
      stateOf(exampleWith((s) => (s.project.description = " a\u2028\u2029b\t\u00a0c "))).project
        .description,
    ).toBe("a b c");
    expect(
      stateOf(exampleWith((s) => (s.project.description = "\r\n\u3000"))).project.description,
    ).toBeNull();
    expect(errorOf(exampleWith((s) => (s.project.description = "a\u0000b")))).toEqual({
      code: "invalid_field",
      path: "project.description",
    });
  });

  it("normalizes a briefing line by line", () => {
    const briefing = stateOf(
      exampleWith((s) => {
        if (s.team[0])
          s.team[0].teamBriefing =
            "\n \u3000\r\n  odsazeno\t \u2028\u2029\tTab\u0085konec\u00a0\n\n";
      }),
    ).team.find((member) => member.id === "m2")?.teamBriefing;
    expect(briefing).toBe("  odsazeno\n\n\tTab\nkonec");
  });

  it("orders the roster by exact instant, then by id in code point order", () => {
    const state = stateOf({
      project: { id: 1, name: "P" },
      team: [
        { id: "\ue000", createdAt: "2026-05-02T14:32:11.000000001Z", salutation: "Cecil" },
        { id: "😀", createdAt: "2026-05-02T16:32:11.000000001+02:00", salutation: "Bára" },
        {
          id: "z",
          createdAt: "2026-05-02T14:32:11.0000000009Z".slice(0, 29) + "Z",
          salutation: "Adam",
        },
        { id: "a", createdAt: "2026-05-02T14:32:11Z", salutation: "Dana" },
      ],
      activeMemberId: "a",
    });
    expect(state.team.map((member) => member.salutation)).toEqual([
      "Dana",
      "Adam",
      "Cecil",
      "Bára",
    ]);
  });
});

describe("parseRenderState: errors", () => {
  const single = (input: unknown, code: string, path: string): [unknown, string, string] => [
    input,
    code,
    path,
  ];
  const cases: ReadonlyArray<[string, [unknown, string, string]]> = [
    ["document not an object", single([], "invalid_field", "")],
    ["document null", single(null, "invalid_field", "")],
    [
      "unknown top-level key",
      single(
        exampleWith((s) => (s["owner"] = "x")),
        "unknown_field",
        "owner",
      ),
    ],
    [
      "unknown project key",
      single(
        exampleWith((s) => Object.assign(s.project, { owner: "x" })),
        "unknown_field",
        "project.owner",
      ),
    ],
    [
      "unknown key quoted",
      single(
        exampleWith((s) => Object.assign(s.project, { "owner name": "x" })),
        "unknown_field",
        'project["owner name"]',
      ),
    ],
    [
      "member email",
      single(
        exampleWith((s) => Object.assign(s.team[0] ?? {}, { email: "a@b" })),
        "forbidden_field",
        "team[0].email",
      ),
    ],
    [
      "member displayName",
      single(
        exampleWith((s) => Object.assign(s.team[1] ?? {}, { displayName: "A" })),
        "forbidden_field",
        "team[1].displayName",
      ),
    ],
    [
      "member key in another case",
      single(
        exampleWith((s) => Object.assign(s.team[1] ?? {}, { Salutation: "A" })),
        "forbidden_field",
        "team[1].Salutation",
      ),
    ],
    [
      "member __proto__",
      single(
        JSON.parse(
          JSON.stringify(workedExample()).replace(
            '"id":"m1"',
            '"__proto__":{"email":"a"},"id":"m1"',
          ),
        ),
        "forbidden_field",
        "team[1].__proto__",
      ),
    ],
    [
      "top-level __proto__",
      single(
        JSON.parse(
          JSON.stringify(workedExample()).replace('{"project"', '{"__proto__":{},"project"'),
        ),
        "unknown_field",
        "__proto__",
      ),
    ],
    [
      "project missing",
      single(
        exampleWith((s) => delete (s as Partial<typeof s>).project),
        "missing_field",
        "project",
      ),
    ],
    [
      "team missing",
      single(
        exampleWith((s) => delete (s as Partial<typeof s>).team),
        "missing_field",
        "team",
      ),
    ],
    [
      "active missing",
      single(
        exampleWith((s) => delete (s as Partial<typeof s>).activeMemberId),
        "missing_field",
        "activeMemberId",
      ),
    ],
    [
      "name missing",
      single(
        exampleWith((s) => delete (s.project as Partial<typeof s.project>).name),
        "missing_field",
        "project.name",
      ),
    ],
    [
      "project id missing",
      single(
        exampleWith((s) => delete (s.project as Partial<typeof s.project>).id),
        "missing_field",
        "project.id",
      ),
    ],
    [
      "member createdAt missing",
      single(
        exampleWith((s) => delete (s.team[1] as Partial<(typeof s.team)[1]>).createdAt),
        "missing_field",
        "team[1].createdAt",
      ),
    ],
    [
      "name null",
      single(
        exampleWith((s) => ((s.project as unknown as Record<string, unknown>)["name"] = null)),
        "invalid_field",
        "project.name",
      ),
    ],
    [
      "project not an object",
      single(
        exampleWith((s) => ((s as Record<string, unknown>)["project"] = "P")),
        "invalid_field",
        "project",
      ),
    ],
    [
      "team not an array",
      single(
        exampleWith((s) => ((s as Record<string, unknown>)["team"] = {})),
        "invalid_field",
        "team",
      ),
    ],
    [
      "member not an object",
      single(
        exampleWith((s) => ((s.team as unknown[])[1] = "m1")),
        "invalid_field",
        "team[1]",
      ),
    ],
    [
      "project id string",
      single(
        exampleWith((s) => ((s.project as unknown as Record<string, unknown>)["id"] = "7")),
        "invalid_field",
        "project.id",
      ),
    ],
    [
      "project id zero",
      single(
        exampleWith((s) => (s.project.id = 0)),
        "invalid_field",
        "project.id",
      ),
    ],
    [
      "project id fraction",
      single(
        exampleWith((s) => (s.project.id = 7.5)),
        "invalid_field",
        "project.id",
      ),
    ],
    [
      "project id too big",
      single(
        exampleWith((s) => (s.project.id = 2 ** 53)),
        "invalid_field",
        "project.id",
      ),
    ],
    [
      "name blank",
      single(
        exampleWith((s) => (s.project.name = " \n ")),
        "invalid_field",
        "project.name",
      ),
    ],
    [
      "name empty",
      single(
        exampleWith((s) => (s.project.name = "")),
        "invalid_field",
        "project.name",
      ),
    ],
    [
      "name control",
      single(
        exampleWith((s) => (s.project.name = "a\u0007b")),
        "invalid_field",
        "project.name",
      ),
    ],
    [
      "name line separator",
      single(
        exampleWith((s) => (s.project.name = "a\u2028b")),
        "invalid_field",
        "project.name",
      ),
    ],
    [
      "name unpaired surrogate",
      single(
        exampleWith((s) => (s.project.name = "a\ud800")),
        "invalid_field",
        "project.name",
      ),
    ],
    [
      "url ftp",
      single(
        exampleWith((s) => (s.project.url = "ftp://x")),
        "invalid_field",
        "project.url",
      ),
    ],
    [
      "url relative",
      single(
        exampleWith((s) => (s.project.url = "/x")),
        "invalid_field",
        "project.url",
      ),
    ],
    [
      "url no authority",
      single(
        exampleWith((s) => (s.project.url = "https:///x")),
        "invalid_field",
        "project.url",
      ),
    ],
    [
      "url white space",
      single(
        exampleWith((s) => (s.project.url = "https://a b")),
        "invalid_field",
        "project.url",
      ),
    ],
    [
      "url too long",
      single(
        exampleWith((s) => (s.project.url = `https://a/${"b".repeat(2039)}`)),
        "invalid_field",
        "project.url",
      ),
    ],
    [
      "url number",
      single(
        exampleWith((s) => ((s.project as unknown as Record<string, unknown>)["url"] = 5)),
        "invalid_field",
        "project.url",
      ),
    ],
    [
      "description too long",
      single(
        exampleWith((s) => (s.project.description = "a".repeat(2001))),
        "invalid_field",
        "project.description",
      ),
    ],
    [
      "tech null",
      single(
        exampleWith(
          (s) => ((s.project as unknown as Record<string, unknown>)["backendLanguage"] = null),
        ),
        "invalid_field",
        "project.backendLanguage",
      ),
    ],
    [
      "tech blank",
      single(
        exampleWith((s) => (s.project.frontendFramework = "  ")),
        "invalid_field",
        "project.frontendFramework",
      ),
    ],
    [
      "tech em-dash",
      single(
        exampleWith((s) => (s.project.backendFramework = " — ")),
        "invalid_field",
        "project.backendFramework",
      ),
    ],
    [
      "tech too long",
      single(
        exampleWith((s) => (s.project.frontendLanguage = "a".repeat(101))),
        "invalid_field",
        "project.frontendLanguage",
      ),
    ],
    [
      "team empty",
      single(
        exampleWith((s) => (s.team = [])),
        "empty_team",
        "team",
      ),
    ],
    [
      "team too big",
      single(
        exampleWith((s) => (s.team = teamOf(51))),
        "invalid_field",
        "team",
      ),
    ],
    [
      "id empty",
      single(
        exampleWith((s) => s.team[1] && (s.team[1].id = "")),
        "invalid_field",
        "team[1].id",
      ),
    ],
    [
      "id number",
      single(
        exampleWith((s) => ((s.team[1] as unknown as Record<string, unknown>)["id"] = 1)),
        "invalid_field",
        "team[1].id",
      ),
    ],
    [
      "createdAt no offset",
      single(
        exampleWith((s) => s.team[0] && (s.team[0].createdAt = "2026-05-02T14:32:11")),
        "invalid_field",
        "team[0].createdAt",
      ),
    ],
    [
      "createdAt leap second",
      single(
        exampleWith((s) => s.team[0] && (s.team[0].createdAt = "2026-12-31T23:59:60Z")),
        "invalid_field",
        "team[0].createdAt",
      ),
    ],
    [
      "salutation digit first",
      single(
        exampleWith((s) => s.team[0] && (s.team[0].salutation = "1. Anna")),
        "invalid_field",
        "team[0].salutation",
      ),
    ],
    [
      "salutation heading",
      single(
        exampleWith((s) => s.team[0] && (s.team[0].salutation = "# Anna")),
        "invalid_field",
        "team[0].salutation",
      ),
    ],
    [
      "salutation quote",
      single(
        exampleWith((s) => s.team[0] && (s.team[0].salutation = 'An"na')),
        "invalid_field",
        "team[0].salutation",
      ),
    ],
    [
      "salutation too long",
      single(
        exampleWith((s) => s.team[0] && (s.team[0].salutation = "A".repeat(65))),
        "invalid_field",
        "team[0].salutation",
      ),
    ],
    [
      "salutation line feed",
      single(
        exampleWith((s) => s.team[0] && (s.team[0].salutation = "An\nna")),
        "invalid_field",
        "team[0].salutation",
      ),
    ],
    [
      "briefing control",
      single(
        exampleWith((s) => s.team[0] && (s.team[0].teamBriefing = "a\u000bb")),
        "invalid_field",
        "team[0].teamBriefing",
      ),
    ],
    [
      "briefing escape",
      single(
        exampleWith((s) => s.team[0] && (s.team[0].teamBriefing = "\u001b[2J")),
        "invalid_field",
        "team[0].teamBriefing",
      ),
    ],
    [
      "briefing number",
      single(
        exampleWith((s) => ((s.team[0] as unknown as Record<string, unknown>)["teamBriefing"] = 1)),
        "invalid_field",
        "team[0].teamBriefing",
      ),
    ],
    [
      "active number",
      single(
        exampleWith((s) => ((s as Record<string, unknown>)["activeMemberId"] = 2)),
        "invalid_field",
        "activeMemberId",
      ),
    ],
    [
      "active unknown",
      single(
        exampleWith((s) => (s.activeMemberId = "m3")),
        "unknown_active_member",
        "activeMemberId",
      ),
    ],
    [
      "active differs in white space",
      single(
        exampleWith((s) => (s.activeMemberId = " m2")),
        "unknown_active_member",
        "activeMemberId",
      ),
    ],
    [
      "duplicate id",
      single(
        exampleWith((s) => s.team[1] && (s.team[1].id = "m2")),
        "duplicate_member",
        "team[1].id",
      ),
    ],
    [
      "duplicate id after NFC",
      single(
        exampleWith((s) => {
          if (s.team[0] && s.team[1]) {
            s.team[0].id = "\u00e9";
            s.team[1].id = "e\u0301";
            s.activeMemberId = "\u00e9";
          }
        }),
        "duplicate_member",
        "team[1].id",
      ),
    ],
    [
      "duplicate salutation by case",
      single(
        exampleWith((s) => s.team[1] && (s.team[1].salutation = " ANNA ")),
        "duplicate_member",
        "team[1].salutation",
      ),
    ],
  ];

  it.each(cases)("%s", (_name, [input, code, path]) => {
    expect(errorOf(input)).toEqual({ code, path });
  });

  it("reports duplicate ids before duplicate salutations, at the later member", () => {
    const team = teamOf(4);
    const [a, b, c, d] = team;
    if (!a || !b || !c || !d) throw new Error("four members");
    b.salutation = a.salutation;
    d.id = c.id;
    expect(errorOf({ project: { id: 1, name: "P" }, team, activeMemberId: "m1" })).toEqual({
      code: "duplicate_member",
      path: "team[3].id",
    });
  });

  it("reports the same error whatever the order of the input's keys", () => {
    const a = {
      project: { name: "P", id: 1, owner: "x", budget: 1 },
      team: teamOf(1),
      activeMemberId: "m1",
    };
    const b = {
      activeMemberId: "m1",
      team: teamOf(1),
      project: { budget: 1, owner: "x", id: 1, name: "P" },
    };
    expect(errorOf(a)).toEqual(errorOf(b));
    expect(errorOf(a)).toEqual({ code: "unknown_field", path: "project.budget" });
  });

  it("never repeats the offending value in the message", () => {
    const secret = "tajne-heslo-1234";
    for (const input of [
      exampleWith((s) => Object.assign(s.team[0] ?? {}, { email: secret })),
      exampleWith((s) => (s.project.name = `${secret}\n${secret}`)),
      exampleWith((s) => s.team[0] && (s.team[0].salutation = `1${secret}`)),
      exampleWith((s) => (s.activeMemberId = secret)),
      exampleWith((s) => s.team[1] && (s.team[1].createdAt = secret)),
    ]) {
      const result = parseRenderState(input);
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toContain(secret);
    }
  });
});
