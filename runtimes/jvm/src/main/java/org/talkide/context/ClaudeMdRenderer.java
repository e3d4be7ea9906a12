package org.talkide.context;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * CLAUDE.md version 1 (spec/claude-md.md), written from the spec page alone: the single file
 * the cases pin and the split form the backend writes. Rendering is string concatenation
 * over a validated state; it reads no clock, locale, environment or random source.
 */
public final class ClaudeMdRenderer {
  /** The file the split form moves the active writer into, relative to the project. */
  public static final String ACTIVE_WRITER_PATH = ".talkide/active-writer.md";

  private static final String EM_DASH = "\u2014";

  /** The 24 lines of the welcome block, the same for every project and every render. */
  private static final String WELCOME =
      """
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
      """;

  private ClaudeMdRenderer() {}

  /** The rendered files of one state: the single form and the two files of the split form. */
  public record Rendered(String single, String splitClaudeMd, String activeWriter) {
    /** The file of the split form at this path ({@code CLAUDE.md} or the active writer). */
    public String splitFile(String path) {
      if (path.equals("CLAUDE.md")) return splitClaudeMd;
      if (path.equals(ACTIVE_WRITER_PATH)) return activeWriter;
      throw new IllegalArgumentException(
          "The split form has the files CLAUDE.md and " + ACTIVE_WRITER_PATH + ", not " + path);
    }
  }

  /**
   * Renders the render state given as JSON text. A byte order mark before the document is
   * ignored, as RFC 8259 allows.
   *
   * @throws StateFault when the state is refused (code and path as the spec lists them)
   */
  public static Rendered render(String json) throws StateFault {
    String text = json.startsWith("\uFEFF") ? json.substring(1) : json;
    JsonNode document = Json.parse(text);
    if (document == null) throw new StateFault("invalid_field", "");
    return render(RenderState.from(document));
  }

  static Rendered render(RenderState state) {
    String shared = sharedPart(state);
    String activeWriter = "# Aktuálně píše\n" + lineStartSafe(state.activeMember().salutation()) + "\n";
    return new Rendered(
        shared + activeWriter, shared + "@" + ACTIVE_WRITER_PATH + "\n", activeWriter);
  }

  /** Everything up to and including the blank line before {@code # Aktuálně píše}. */
  private static String sharedPart(RenderState state) {
    RenderState.Project project = state.project();
    StringBuilder out = new StringBuilder(4096);
    out.append("# Projekt\n")
        .append("- **Název**: ").append(importSafe(project.name())).append('\n')
        .append("- **URL**: ").append(importSafe(orEmDash(project.url()))).append('\n')
        .append("- **Popis**: ").append(importSafe(orEmDash(project.description()))).append('\n')
        .append("- **Backend**: ").append(importSafe(project.backendLanguage())).append(" / ")
        .append(importSafe(project.backendFramework())).append('\n')
        .append("- **Frontend**: ").append(importSafe(project.frontendLanguage())).append(" / ")
        .append(importSafe(project.frontendFramework())).append('\n')
        .append("\n# Infrastructure\n")
        .append("See `.talkide/project.yml` for ports, URLs, and configuration.\n")
        .append("\n# Welcome instrukce\n")
        .append(WELCOME)
        .append("\n# Tým\n");
    for (RenderState.Member member : state.team()) {
      out.append("\n## Oslovuj jako \"").append(lineStartSafe(member.salutation())).append("\"\n")
          .append("Briefing pro tým:\n");
      quote(out, importSafe(orEmDash(member.teamBriefing())));
    }
    return out.append('\n').toString();
  }

  /**
   * Spec "User text loads no file" and "User text forges no wrapper": every {@code @} and
   * {@code <} of user text is written {@code \@}, {@code \<}, and a run of n backslashes right
   * before it becomes 2n + 1, so Claude Code follows no import and no user value writes a tag
   * of its wrapper ({@code </system-reminder>}).
   */
  static String importSafe(String value) {
    return value.replaceAll("(\\\\*)([@<])", "$1$1\\\\$2");
  }

  /**
   * A value that starts a line of its own (the salutation under {@code # Aktuálně píše}): its
   * {@code :} is escaped as well, so it cannot read as a header line of the runtime
   * ({@code Contents of PATH (LABEL):}).
   */
  static String lineStartSafe(String value) {
    return value.replaceAll("(\\\\*)([@<:])", "$1$1\\\\$2");
  }

  /** The line-prefix rule: every line gets "> ", an empty line the bare ">". */
  private static void quote(StringBuilder out, String value) {
    for (String line : List.of(value.split("\n", -1))) {
      if (line.isEmpty()) out.append(">\n");
      else out.append("> ").append(line).append('\n');
    }
  }

  private static String orEmDash(String value) {
    return value == null ? EM_DASH : value;
  }
}
