/**
 * The static text of CLAUDE.md v2, cut at the placeholders of the spec's template
 * (`packages/context-spec/spec/claude-md.md`). The conformance cases pin every byte of it;
 * changing a single byte here fails them.
 */

export const EM_DASH = "—";

export const PROJECT_NAME = "# Projekt\n- **Název**: ";
export const PROJECT_URL = "\n- **URL**: ";
export const PROJECT_DESCRIPTION = "\n- **Popis**: ";
export const PROJECT_BACKEND = "\n- **Backend**: ";
export const PROJECT_FRONTEND = "\n- **Frontend**: ";
export const TECH_SEPARATOR = " / ";

/**
 * The welcome block: the 24 lines of the original design page, verbatim and identical for
 * every project, so the top of the file stays in the model provider's prompt cache.
 */
const WELCOME_LINES = [
  "**Pseudo-Mara již uživatele přivítala** v UI před vstupem do workspace.",
  "Ty jsi reálná Mara a zahajuješ první konverzaci v tomto projektu.",
  "Pravidla pro tvou první zprávu:",
  '- **NEZDRAV.** Žádné "Ahoj", "Hi", "Vítej", "Hello", "Zdravím", oslovení',
  'jménem v úvodní větě, ani parafráze typu "Tak jdeme na to". Pseudo-Mara',
  "to už udělala — opakování působí roboticky.",
  "- **Stav projektu = greenfield.** Toto je úplně nový, prázdný projekt.",
  "Aktuálně **neexistuje žádný kód, žádný use case, žádný design, žádné",
  "entity, žádný dokument**. Jsme na startu od nuly. **Nepředpokládej**,",
  'že cokoli z popisu projektu už existuje, je rozpracované nebo "stačí',
  'doladit". Popis projektu je *záměr*, ne *aktuální stav*.',
  "- **Využij popis projektu** výše jako kontext — chápeš, co chce uživatel",
  "stavět, a tomu přizpůsob konkrétní formulaci. Ale výchozí bod je",
  "prázdné plátno.",
  "- **Nabídni 2-3 vhodné úvodní směry** pro greenfield projekt. Typicky:",
  "společně sepsat specifikaci (co aplikace dělá, kdo jsou uživatelé,",
  "klíčové scénáře), identifikovat první use case (nejmenší smysluplný",
  "kus s hodnotou), navrhnout doménový model (klíčové entity a vztahy),",
  "ujasnit business cíle a omezení. Vyber 2-3 nejvhodnější podle popisu",
  "projektu — nenabízej všechny.",
  '- **Tón:** krátká, věcná první věta. Žádné prázdné fráze ("Na čem',
  'dneska zapracujeme?" předpokládá kontext, který zatím není). Spíš',
  'něco jako "Než začneme stavět, pojďme se domluvit, co to má vlastně',
  'být." — a hned přejdi k nabídce směrů.',
];

/** From the end of the Frontend line through the `# Tým` heading line. */
export const MIDDLE =
  "\n\n# Infrastructure\nSee `.talkide/project.yml` for ports, URLs, and configuration.\n\n# Welcome instrukce\n" +
  WELCOME_LINES.join("\n") +
  "\n\n# Tým\n";

export const MEMBER_OPEN = '\n## Oslovuj jako "';
export const MEMBER_BRIEFING = '"\nBriefing pro tým:\n';
export const QUOTE = "> ";
/** An empty briefing line: the quote prefix without its trailing space. */
export const QUOTE_EMPTY_LINE = ">";

/** The blank line before the active writer's section, which the shared part ends with. */
export const BEFORE_ACTIVE_WRITER = "\n";
export const ACTIVE_WRITER_HEADING = "# Aktuálně píše\n";

/** The split form's import line in CLAUDE.md, standing where the last section would be. */
export const ACTIVE_WRITER_PATH = ".talkide/active-writer.md";
export const ACTIVE_WRITER_IMPORT = `@${ACTIVE_WRITER_PATH}\n`;

export const DEFAULT_BACKEND_LANGUAGE = "Kotlin";
export const DEFAULT_BACKEND_FRAMEWORK = "Spring Boot";
export const DEFAULT_FRONTEND_LANGUAGE = "TypeScript";
export const DEFAULT_FRONTEND_FRAMEWORK = "Vue.js";
