import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { changedInstructionReminder } from "../instruction-reminder.ts";
import { DEMO_MODEL_MARK, demoModelAnswer } from "./demo-model.ts";
import type { RecordedRequest } from "./fake-messages-api.ts";

// Request bodies as Claude Code 2.1.330 sends them (WIRE-NOTES.md): the split form of CLAUDE.md
// (packages/context-spec/spec/claude-md.md) in the first turn's reminder, changed files alone
// in a resumed turn's.

const DIR = "/home/u/.local/share/talkide/be/workspaces-0123456789ab/project-7";
const INITIAL_HEADER =
  "<system-reminder>\nCodebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.\n\n";

interface Member {
  readonly salutation: string;
  readonly briefing: string | null;
}

interface State {
  readonly name: string;
  readonly team: readonly Member[];
  readonly active: number;
}

function claudeMd(state: State): string {
  const team = state.team.flatMap((member) => [
    "",
    `## Oslovuj jako "${member.salutation}"`,
    "Briefing pro tým:",
    ...(member.briefing ?? "—").split("\n").map((line) => (line === "" ? ">" : `> ${line}`)),
  ]);
  return [
    "# Projekt",
    `- **Název**: ${state.name}`,
    "- **URL**: —",
    "- **Popis**: —",
    "",
    "# Tým",
    ...team,
    "",
    "@.talkide/active-writer.md",
    "",
  ].join("\n");
}

function activeWriterMd(state: State): string {
  return `# Aktuálně píše\n${state.team[state.active]?.salutation ?? ""}\n`;
}

function initialReminder(state: State): string {
  const sections = [
    [`${DIR}/CLAUDE.md`, claudeMd(state)],
    [`${DIR}/.talkide/active-writer.md`, activeWriterMd(state)],
  ].map(
    ([path, content]) =>
      `Contents of ${path} (project instructions, checked into the codebase):\n\n${(content ?? "").trimEnd()}`,
  );
  return `${INITIAL_HEADER}${sections.join("\n\n")}\n</system-reminder>`;
}

const text = (value: string) => ({ type: "text", text: value });

function requestOf(
  messages: unknown[],
  system: string = "You are Claude Code.",
  extra: Record<string, unknown> = {},
): RecordedRequest {
  const body = {
    model: "claude-sonnet-4-5-20250929",
    system: [text(system)],
    messages,
    tools: [],
    stream: true,
    ...extra,
  };
  const rawBody = JSON.stringify(body);
  return {
    index: 0,
    method: "POST",
    path: "/v1/messages",
    query: "",
    headers: {},
    body,
    rawBody,
    bodyBytes: Buffer.byteLength(rawBody),
  };
}

/** A first turn: the reminder, then the member's prompt. */
function firstTurn(state: State, prompt: string, system?: string): RecordedRequest {
  return requestOf(
    [{ role: "user", content: [text(initialReminder(state)), text(prompt)] }],
    system,
  );
}

/** A resumed turn after `before`, with `after` the state now: only changed files again. */
function secondTurn(before: State, after: State, prompt: string): RecordedRequest {
  const changed = [
    [`${DIR}/CLAUDE.md`, claudeMd(before), claudeMd(after)],
    [`${DIR}/.talkide/active-writer.md`, activeWriterMd(before), activeWriterMd(after)],
  ]
    .filter(([, old, now]) => old !== now)
    .map(([absolutePath, , content]) => ({
      absolutePath: absolutePath ?? "",
      content: content ?? "",
    }));
  const reminder = changedInstructionReminder(changed);
  return requestOf([
    { role: "user", content: [text(initialReminder(before)), text("První zpráva.")] },
    { role: "assistant", content: [text("(earlier answer)")] },
    { role: "user", content: [...(reminder === null ? [] : [text(reminder)]), text(prompt)] },
  ]);
}

// Values as the renderer admits them: single-line names, salutations starting with a letter
// and free of `"`, briefings of several lines. Letters keep them apart from the fixed wording.
const word = fc.stringMatching(/^[A-Za-zÀ-ÖØ-öø-ž][A-Za-zÀ-ÖØ-öø-ž0-9]{2,11}$/);
const briefing = fc.option(
  fc
    .array(fc.stringMatching(/^[^\n\r]{0,30}$/), { minLength: 1, maxLength: 4 })
    .map((lines) => lines.map((line) => line.trim()).join("\n")),
);
const state: fc.Arbitrary<State> = fc
  .record({
    name: fc.stringMatching(/^[A-Za-zÀ-ž][^\n\r"]{0,40}[A-Za-z]$/),
    team: fc.uniqueArray(fc.record({ salutation: word, briefing }), {
      minLength: 1,
      maxLength: 5,
      selector: (member) => member.salutation.toLowerCase(),
    }),
    active: fc.nat(),
  })
  .map((s) => ({ ...s, active: s.active % s.team.length }));

const ANNA_AND_BORIS: State = {
  name: "Pekárna u Jelena",
  team: [
    { salutation: "Anna", briefing: "Preferuji Pinia.\n\nA testy." },
    { salutation: "Boris", briefing: null },
  ],
  active: 0,
};

describe("demoModelAnswer", () => {
  it("says what Mara received in a first turn", () => {
    expect(demoModelAnswer(firstTurn(ANNA_AND_BORIS, "Ahoj Maro"))).toBe(
      [
        `${DEMO_MODEL_MARK} Odpovídá místní demo model, ne Claude: jen opakuje, co Mara dostala v tomto požadavku. Skutečné odpovědi: nastav ANTHROPIC_API_KEY a restartuj službu.`,
        "",
        "Projekt: Pekárna u Jelena",
        "Píše teď: Anna",
        "Tým: Anna, Boris",
        "Briefing pro tým (Anna):",
        "> Preferuji Pinia.",
        ">",
        "> A testy.",
        "",
        "Začátek konverzace: přišly instrukční soubory CLAUDE.md, .talkide/active-writer.md.",
      ].join("\n"),
    );
  });

  it("names the new writer, the one before and the file that came again after a switch", () => {
    const boris = { ...ANNA_AND_BORIS, active: 1 };
    const answer = demoModelAnswer(secondTurn(ANNA_AND_BORIS, boris, "Teď já"));
    expect(answer).toContain("Píše teď: Boris (předtím: Anna)\n");
    expect(answer).toContain("\nBriefing pro tým (Boris):\n> —\n");
    expect(answer).toMatch(
      /\nOd minulého tahu: přišly znovu jen změněné soubory \.talkide\/active-writer\.md\.$/,
    );
  });

  it("says that nothing changed when a resumed turn brings no file", () => {
    const answer = demoModelAnswer(secondTurn(ANNA_AND_BORIS, ANNA_AND_BORIS, "Dál"));
    expect(answer).toContain("Píše teď: Anna\n");
    expect(answer).toMatch(/Od minulého tahu se žádný instrukční soubor nezměnil/);
  });

  it("answers a request without instruction files, marked all the same", () => {
    const answer = demoModelAnswer(requestOf([{ role: "user", content: "Hi" }]));
    expect(answer.startsWith(`${DEMO_MODEL_MARK} `)).toBe(true);
    expect(answer).toContain("nepřišel žádný instrukční soubor");
  });

  test.prop({ s: state, prompt: fc.string() })(
    "is deterministic: the same request body gives the same answer",
    ({ s, prompt }) => {
      const request = firstTurn(s, prompt);
      const again = requestOf(
        (JSON.parse(request.rawBody) as { messages: unknown[] }).messages,
        "You are Claude Code.",
      );
      expect(demoModelAnswer(request)).toBe(demoModelAnswer(request));
      expect(demoModelAnswer(again)).toBe(demoModelAnswer(request));
    },
  );

  test.prop({ s: state, prompt: fc.string() })(
    "names the project, the active writer and only the active writer's briefing",
    ({ s, prompt }) => {
      const answer = demoModelAnswer(firstTurn(s, prompt));
      const writer = s.team[s.active];
      expect(answer.startsWith(`${DEMO_MODEL_MARK} `)).toBe(true);
      expect(answer).toContain(`\nProjekt: ${s.name}\n`);
      expect(answer).toContain(`\nPíše teď: ${writer?.salutation ?? ""}\n`);
      expect(answer).toContain(`\nTým: ${s.team.map((m) => m.salutation).join(", ")}\n`);
      for (const line of (writer?.briefing ?? "—").split("\n")) {
        expect(answer).toContain(line === "" ? "\n>\n" : `\n> ${line}\n`);
      }
    },
  );

  test.prop({ before: state, after: state, prompt: fc.string() })(
    "after any change names the writer now and the files that arrived again",
    ({ before, after, prompt }) => {
      const answer = demoModelAnswer(secondTurn(before, after, prompt));
      const was = before.team[before.active]?.salutation ?? "";
      const is = after.team[after.active]?.salutation ?? "";
      expect(answer).toContain(`\nProjekt: ${after.name}\n`);
      expect(answer).toContain(
        was === is ? `\nPíše teď: ${is}\n` : `\nPíše teď: ${is} (předtím: ${was})\n`,
      );
      const changed = [
        claudeMd(before) !== claudeMd(after) ? "CLAUDE.md" : null,
        activeWriterMd(before) !== activeWriterMd(after) ? ".talkide/active-writer.md" : null,
      ].filter((file) => file !== null);
      expect(answer.split("\n").at(-1)).toBe(
        changed.length === 0
          ? "Od minulého tahu se žádný instrukční soubor nezměnil (Claude Code je neposlal znovu)."
          : `Od minulého tahu: přišly znovu jen změněné soubory ${changed.join(", ")}.`,
      );
    },
  );

  test.prop({ s: state, other: state, canary: word.map((w) => `Kanárek${w}`) })(
    "never says anything the instruction files did not carry, nor what another request did",
    ({ s, other, canary }) => {
      // The canary stands in the system prompt, the message, another member's briefing and an
      // unknown body field: nowhere the answer reads from.
      const silent: State = {
        ...s,
        team: s.team.map((member, index) =>
          index === s.active ? member : { ...member, briefing: canary },
        ),
      };
      const otherAnswer = demoModelAnswer(firstTurn(other, canary));
      const request = requestOf(
        [{ role: "user", content: [text(initialReminder(silent)), text(canary)] }],
        canary,
        { metadata: { user_id: canary } },
      );
      const answer = demoModelAnswer(request);
      expect(answer).not.toContain(canary);
      // One stand-in serves every project: an answer to another request changes nothing.
      expect(demoModelAnswer(firstTurn(silent, "x"))).toBe(answer);
      expect(otherAnswer).not.toContain(canary);
      // Every line past the fixed first one is fixed wording around values of the request.
      for (const line of answer.split("\n").slice(1)) {
        const value = line.replace(
          /^(Projekt: |Píše teď: |Tým: |Briefing pro tým \(|Začátek konverzace: přišly instrukční soubory )/,
          "",
        );
        for (const piece of value.split(/, | \(předtím: |\):$|\)$|\.$/)) {
          if (piece !== "") expect(request.rawBody).toContain(JSON.stringify(piece).slice(1, -1));
        }
      }
    },
  );
});
