import { describe, expect, it } from "vitest";
import { parseRenderState } from "./parse.ts";
import { renderClaudeMd, renderContextFiles } from "./render.ts";
import type { RenderState } from "./state.ts";
import { exampleWith, teamOf, workedExample } from "./test-support/fixtures.ts";

function stateOf(input: unknown): RenderState {
  const result = parseRenderState(input);
  if (!result.ok)
    throw new Error(`expected a valid state, got ${result.error.code} at ${result.error.path}`);
  return result.state;
}

/** The contract's worked example output, with the welcome block written out in full. */
const WORKED_EXAMPLE_OUTPUT = `# Projekt
- **Název**: Pekárna u Jelena
- **URL**: —
- **Popis**: E-shop pro malou pekárnu
- **Backend**: Kotlin / Spring Boot
- **Frontend**: TypeScript / Vue.js

# Infrastructure
See \`.talkide/project.yml\` for ports, URLs, and configuration.

# Welcome instrukce
**Pseudo-Mara již uživatele přivítala** v UI před vstupem do workspace.
Ty jsi reálná Mara a zahajuješ první konverzaci v tomto projektu.
Pravidla pro tvou první zprávu:
- **NEZDRAV.** Žádné "Ahoj", "Hi", "Vítej", "Hello", "Zdravím", oslovení
jménem v úvodní větě, ani parafráze typu "Tak jdeme na to". Pseudo-Mara
to už udělala — opakování působí roboticky.
- **Stav projektu = greenfield.** Toto je úplně nový, prázdný projekt.
Aktuálně **neexistuje žádný kód, žádný use case, žádný design, žádné
entity, žádný dokument**. Jsme na startu od nuly. **Nepředpokládej**,
že cokoli z popisu projektu už existuje, je rozpracované nebo "stačí
doladit". Popis projektu je *záměr*, ne *aktuální stav*.
- **Využij popis projektu** výše jako kontext — chápeš, co chce uživatel
stavět, a tomu přizpůsob konkrétní formulaci. Ale výchozí bod je
prázdné plátno.
- **Nabídni 2-3 vhodné úvodní směry** pro greenfield projekt. Typicky:
společně sepsat specifikaci (co aplikace dělá, kdo jsou uživatelé,
klíčové scénáře), identifikovat první use case (nejmenší smysluplný
kus s hodnotou), navrhnout doménový model (klíčové entity a vztahy),
ujasnit business cíle a omezení. Vyber 2-3 nejvhodnější podle popisu
projektu — nenabízej všechny.
- **Tón:** krátká, věcná první věta. Žádné prázdné fráze ("Na čem
dneska zapracujeme?" předpokládá kontext, který zatím není). Spíš
něco jako "Než začneme stavět, pojďme se domluvit, co to má vlastně
být." — a hned přejdi k nabídce směrů.

# Tým

## Oslovuj jako "Jirka"
Briefing pro tým:
> —

## Oslovuj jako "Anna"
Briefing pro tým:
> Preferuji Pinia.
>
> Testy piš ve Vitestu.

# Aktuálně píše
Anna
`;

describe("renderClaudeMd", () => {
  it("renders the contract's worked example byte for byte", () => {
    expect(renderClaudeMd(stateOf(workedExample()))).toBe(WORKED_EXAMPLE_OUTPUT);
  });

  it("renders given values in place of the defaults and the em-dashes", () => {
    const output = renderClaudeMd(
      stateOf(
        exampleWith((s) => {
          Object.assign(s.project, {
            url: "https://pekarna.example/",
            description: "Chleba",
            backendLanguage: "Java",
            backendFramework: "Quarkus",
            frontendLanguage: "JavaScript",
            frontendFramework: "Svelte",
          });
        }),
      ),
    );
    expect(output).toContain("- **URL**: https://pekarna.example/\n- **Popis**: Chleba\n");
    expect(output).toContain(
      "- **Backend**: Java / Quarkus\n- **Frontend**: JavaScript / Svelte\n",
    );
  });

  it("keeps a briefing's leading white space and Markdown inside the quote", () => {
    const output = renderClaudeMd(
      stateOf(
        exampleWith(
          (s) => s.team[0] && (s.team[0].teamBriefing = "# Nadpis\n  - bod\n\n\n> citace\n```"),
        ),
      ),
    );
    expect(output).toContain(
      '## Oslovuj jako "Anna"\nBriefing pro tým:\n> # Nadpis\n>   - bod\n>\n>\n> > citace\n> ```\n\n',
    );
  });
});

describe("renderContextFiles", () => {
  it("gives the single file alone in the single layout", () => {
    const state = stateOf(workedExample());
    expect(renderContextFiles(state, { layout: "single" })).toEqual([
      { path: "CLAUDE.md", content: WORKED_EXAMPLE_OUTPUT },
    ]);
  });

  it("moves the active writer into its own file in the split layout", () => {
    const state = stateOf(workedExample());
    const [claudeMd, activeWriter, ...rest] = renderContextFiles(state, { layout: "split" });
    expect(rest).toEqual([]);
    expect(claudeMd?.path).toBe("CLAUDE.md");
    expect(activeWriter).toEqual({
      path: ".talkide/active-writer.md",
      content: "# Aktuálně píše\nAnna\n",
    });
    const cut = WORKED_EXAMPLE_OUTPUT.indexOf("# Aktuálně píše\n");
    expect(claudeMd?.content).toBe(
      `${WORKED_EXAMPLE_OUTPUT.slice(0, cut)}@.talkide/active-writer.md\n`,
    );
  });

  it("changes only the active writer's file when the writer changes", () => {
    const input = { project: { id: 1, name: "P" }, team: teamOf(3), activeMemberId: "m1" };
    const before = renderContextFiles(stateOf(input), { layout: "split" });
    const after = renderContextFiles(stateOf({ ...input, activeMemberId: "m3" }), {
      layout: "split",
    });
    expect(after[0]).toEqual(before[0]);
    expect(after[1]?.content).toBe("# Aktuálně píše\nČlen3\n");
  });
});
