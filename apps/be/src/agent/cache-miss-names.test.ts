import { explainCacheMiss, promptShapeOf } from "@talkide/gateway";
import { parseRenderState, renderContextFiles } from "@talkide/renderer";
import { describe, expect, it } from "vitest";
import { nameCacheMiss } from "./cache-miss-names.ts";

const WORKSPACE = "/srv/talkide/workspaces/project-2";

interface State {
  project: { id: number; name: string; url: string | null; description: string | null };
  team: Array<{ id: string; createdAt: string; salutation: string; teamBriefing: string | null }>;
  activeMemberId: string;
}

const BASE: State = {
  project: { id: 2, name: "Pekárna u Jelena", url: null, description: "E-shop pro malou pekárnu" },
  team: [
    {
      id: "a",
      createdAt: "2026-12-01T10:00:00Z",
      salutation: "Anna",
      teamBriefing: "Preferuji Pinia.",
    },
    {
      id: "b",
      createdAt: "2026-12-01T11:00:00Z",
      salutation: "Bob",
      teamBriefing: "Vue Router 4.",
    },
  ],
  activeMemberId: "a",
};

/**
 * The first text block of a session's first request: Claude Code's instruction-file reminder
 * with our rendered files, as the pinned CLI writes it (WIRE-NOTES.md of @talkide/claude-cli).
 */
function reminder(state: State, layout: "split" | "single"): string {
  const parsed = parseRenderState(state);
  if (!parsed.ok) throw new Error(parsed.error.code);
  const files = renderContextFiles(parsed.state, { layout });
  return [
    "<system-reminder>",
    "Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.",
    "",
    ...files.flatMap((f) => [
      `Contents of ${WORKSPACE}/${f.path} (project instructions, checked into the codebase):`,
      "",
      f.content.trimEnd(),
      "",
    ]),
  ]
    .join("\n")
    .replace(/\n$/, "\n</system-reminder>");
}

function request(firstBlock: string, system = "You are Mara.", tools = ["Read", "Bash"]): unknown {
  return {
    model: "claude-opus-5-5",
    tools: tools.map((name) => ({ name, input_schema: { type: "object" } })),
    system: [
      { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.330.abc;" },
      { type: "text", text: system, cache_control: { type: "ephemeral", ttl: "1h" } },
    ],
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: firstBlock },
          {
            type: "text",
            text: "Message from the active writer:\n\nAhoj",
            cache_control: { type: "ephemeral", ttl: "1h" },
          },
        ],
      },
    ],
  };
}

/** The phrase for the second request of a session whose first was `before`. */
function phraseOf(before: unknown, after: unknown, gapMs = 60_000): string | null {
  const shape = (body: unknown) => {
    const s = promptShapeOf(body);
    if (s === null) throw new Error("not a Messages request");
    return s;
  };
  const { changed, ...miss } = explainCacheMiss({
    previous: { ...shape(before), at: 0, promptTokens: 10_000 },
    next: shape(after),
    at: gapMs,
    readTokens: 0,
  });
  return nameCacheMiss(miss, changed);
}

const changes: Array<[string, (s: State) => void, string]> = [
  ["the active writer", (s) => (s.activeMemberId = "b"), "the active writer changed"],
  [
    "a member joining",
    (s) =>
      s.team.push({
        id: "c",
        createdAt: "2026-12-02T09:00:00Z",
        salutation: "Cyril",
        teamBriefing: null,
      }),
    "the roster section changed",
  ],
  [
    "a salutation",
    (s) =>
      (s.team[1] = {
        id: "b",
        createdAt: "2026-12-01T11:00:00Z",
        salutation: "Bobek",
        teamBriefing: "Vue Router 4.",
      }),
    "the roster section changed",
  ],
  [
    "a briefing",
    (s) =>
      (s.team[0] = {
        id: "a",
        createdAt: "2026-12-01T10:00:00Z",
        salutation: "Anna",
        teamBriefing: "Preferuji Vuex.",
      }),
    "a briefing changed",
  ],
  [
    "the description",
    (s) => (s.project.description = "E-shop pro velkou pekárnu"),
    "the project's description changed",
  ],
];

describe("the backend's names for a cache miss", () => {
  for (const layout of ["split", "single"] as const) {
    it.each(changes)(
      `names a change of %s inside the rendered CLAUDE.md (${layout} layout)`,
      (_, edit, phrase) => {
        const changed = structuredClone(BASE);
        edit(changed);
        expect(phraseOf(request(reminder(BASE, layout)), request(reminder(changed, layout)))).toBe(
          phrase,
        );
      },
    );
  }

  it("names a change of the welcome block as a changed briefing", () => {
    const before = reminder(BASE, "split");
    const after = before.replace(
      "Pravidla pro tvou první zprávu:",
      "Pravidla pro tvou první odpověď:",
    );
    expect(after).not.toBe(before);
    expect(phraseOf(request(before), request(after))).toBe("a briefing changed");
  });

  it("names the system prompt, the tools, a new session and an expired cache", () => {
    const first = request(reminder(BASE, "split"));
    expect(phraseOf(first, request(reminder(BASE, "split"), "You are Mara, v2."))).toBe(
      "the agent file changed",
    );
    expect(phraseOf(first, request(reminder(BASE, "split"), "You are Mara.", ["Read"]))).toBe(
      "the CLI's tool list changed",
    );
    expect(phraseOf(first, first, 72 * 60_000)).toBe("the cache expired after 72 min");
    expect(
      nameCacheMiss({ reason: "new_session", position: null, gapMs: null, ttlMs: null }, null),
    ).toBe("a new session started");
    expect(phraseOf(first, first)).toBeNull();
  });

  it("leaves a change outside our files unnamed", () => {
    const before = request(reminder(BASE, "split"));
    const other = (text: string) => ({
      ...(before as Record<string, unknown>),
      messages: [{ role: "user", content: [{ type: "text", text }] }],
    });
    expect(
      phraseOf(
        other("Contents of /etc/other.md (x):\n\n# Tým\nA"),
        other("Contents of /etc/other.md (x):\n\n# Tým\nB"),
      ),
    ).toBeNull();
  });
});
