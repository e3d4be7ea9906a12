package org.talkide.context

import java.nio.ByteBuffer
import java.nio.charset.CharacterCodingException
import java.nio.charset.CodingErrorAction

/**
 * CLAUDE.md version 2 (spec/claude-md.md) in the shape the spec gives the platform backend's
 * renderer: one object, `render(json)` over the text of a render state, the single file and
 * the two files of the split form. Rendering is string concatenation over a validated state;
 * it reads no clock, locale, environment or random source.
 */
object MaraContextRenderer {
  /** The file the split form moves the active writer into, relative to the project. */
  const val ACTIVE_WRITER_PATH = ".talkide/active-writer.md"

  private const val EM_DASH = "\u2014"

  /** The 24 lines of the welcome block, the same for every project and every render. */
  private val WELCOME =
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
    """
      .trimIndent() + "\n"

  /** The rendered files of one state: the single form and the two files of the split form. */
  data class Rendered(val single: String, val splitClaudeMd: String, val activeWriter: String) {
    /** The file of the split form at this path (`CLAUDE.md` or the active writer). */
    fun splitFile(path: String): String =
      when (path) {
        "CLAUDE.md" -> splitClaudeMd
        ACTIVE_WRITER_PATH -> activeWriter
        else ->
          throw IllegalArgumentException(
            "The split form has the files CLAUDE.md and $ACTIVE_WRITER_PATH, not $path"
          )
      }
  }

  /**
   * Renders the render state given as JSON text. A byte order mark before the document is
   * ignored, as RFC 8259 allows.
   *
   * @throws StateFault when the state is refused (code and path as the spec lists them)
   */
  fun render(json: String): Rendered {
    val text = if (json.startsWith("\uFEFF")) json.substring(1) else json
    val document = Json.parse(text) ?: throw StateFault("invalid_field", "")
    return render(RenderState.from(document))
  }

  /**
   * Renders the render state given as its bytes. Bytes that are not UTF-8 are not JSON, so
   * such a state is refused (`invalid_field` at the document).
   */
  fun render(json: ByteArray): Rendered = render(decodeUtf8(json))

  private fun decodeUtf8(bytes: ByteArray): String =
    try {
      Charsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
        .toString()
    } catch (notUtf8: CharacterCodingException) {
      throw StateFault("invalid_field", "")
    }

  internal fun render(state: RenderState): Rendered {
    val shared = sharedPart(state)
    val activeWriter = "# Aktuálně píše\n" + lineStartSafe(state.activeMember.salutation) + "\n"
    return Rendered(shared + activeWriter, shared + "@" + ACTIVE_WRITER_PATH + "\n", activeWriter)
  }

  /** Everything up to and including the blank line before `# Aktuálně píše`. */
  private fun sharedPart(state: RenderState): String {
    val project = state.project
    val out = StringBuilder(4096)
    out.append("# Projekt\n")
      .append("- **Název**: ").append(importSafe(project.name)).append('\n')
      .append("- **URL**: ").append(importSafe(orEmDash(project.url))).append('\n')
      .append("- **Popis**: ").append(importSafe(orEmDash(project.description))).append('\n')
      .append("- **Backend**: ").append(importSafe(project.backendLanguage)).append(" / ")
      .append(importSafe(project.backendFramework)).append('\n')
      .append("- **Frontend**: ").append(importSafe(project.frontendLanguage)).append(" / ")
      .append(importSafe(project.frontendFramework)).append('\n')
      .append("\n# Infrastructure\n")
      .append("See `.talkide/project.yml` for ports, URLs, and configuration.\n")
      .append("\n# Welcome instrukce\n")
      .append(WELCOME)
      .append("\n# Tým\n")
    for (member in state.team) {
      out.append("\n## Oslovuj jako \"").append(lineStartSafe(member.salutation)).append("\"\n")
        .append("Briefing pro tým:\n")
      quote(out, importSafe(orEmDash(member.teamBriefing)))
    }
    return out.append('\n').toString()
  }

  private val IMPORT_SIGN = Regex("""(\\*)([@<])""")
  private val LINE_START_SIGN = Regex("""(\\*)([@<:])""")

  /**
   * Spec "User text loads no file" and "User text forges no wrapper": every `@` and `<` of
   * user text is written `\@`, `\<`, and a run of n backslashes right before it becomes
   * 2n + 1, so Claude Code follows no import and no user value writes a tag of its wrapper.
   */
  internal fun importSafe(value: String): String =
    IMPORT_SIGN.replace(value) { match -> match.groupValues[1].repeat(2) + "\\" + match.groupValues[2] }

  /**
   * A value that starts a line of its own (the salutation under `# Aktuálně píše`): its `:`
   * is escaped as well, so it cannot read as a header line of the runtime
   * (`Contents of PATH (LABEL):`).
   */
  internal fun lineStartSafe(value: String): String =
    LINE_START_SIGN.replace(value) { match ->
      match.groupValues[1].repeat(2) + "\\" + match.groupValues[2]
    }

  /** The line-prefix rule: every line gets "> ", an empty line the bare ">". */
  private fun quote(out: StringBuilder, value: String) {
    for (line in value.split("\n")) {
      if (line.isEmpty()) out.append(">\n") else out.append("> ").append(line).append('\n')
    }
  }

  private fun orEmDash(value: String?): String = value ?: EM_DASH
}

/**
 * A refused render state: one error code and the path of the fault in the input
 * (spec/claude-md.md, "Errors"). The message never repeats the offending value, which may be
 * personal data.
 */
class StateFault(val code: String, val path: String) :
  Exception(code + " at " + (if (path.isEmpty()) "the document" else path), null, false, false)
