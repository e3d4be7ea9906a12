package org.talkide.context

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode

/**
 * A render state after the validation and normalization of spec/claude-md.md ("Input
 * document", "Normalization and validation"), with the team in roster order. Blank optional
 * values are null, and render as the em-dash.
 */
internal data class RenderState(val project: Project, val team: List<Member>, val activeMember: Member) {

  data class Project(
    val name: String,
    val url: String?,
    val description: String?,
    val backendLanguage: String,
    val backendFramework: String,
    val frontendLanguage: String,
    val frontendFramework: String,
  )

  data class Member(val id: String, val createdAt: Timestamp, val salutation: String, val teamBriefing: String?)

  companion object {
    private val TOP_LEVEL_KEYS = listOf("project", "team", "activeMemberId")
    private val PROJECT_KEYS =
      listOf(
        "id",
        "name",
        "url",
        "description",
        "backendLanguage",
        "backendFramework",
        "frontendLanguage",
        "frontendFramework",
      )
    /** The privacy allowlist: any other key of a member is forbidden_field. */
    private val MEMBER_KEYS = listOf("id", "createdAt", "salutation", "teamBriefing")

    private const val MAX_TEAM = 50
    private const val EM_DASH = "\u2014"
    private const val MAX_PROJECT_ID = 9_007_199_254_740_991.0
    private val PLAIN_IDENTIFIER = Regex("[A-Za-z_][A-Za-z0-9_]*")
    /** `\r`, U+0085, U+2028, U+2029 (after `\r\n` became one line feed). */
    private val OTHER_LINE_BREAK = Regex("[\r\u0085\u2028\u2029]")
    private val URL_SCHEME = Regex("https?://.*", setOf(RegexOption.IGNORE_CASE, RegexOption.DOT_MATCHES_ALL))

    /** Roster order: createdAt as an instant, then id by code point value. */
    private val ROSTER_ORDER: Comparator<Member> =
      compareBy<Member> { it.createdAt }.thenComparator { a, b -> byCodePoint(a.id, b.id) }

    fun from(document: JsonNode): RenderState {
      val root = objectAt(document, "")
      rejectKeysOutside(root, "", TOP_LEVEL_KEYS, "unknown_field")
      val project = project(required(root, "", "project"))
      val team = team(required(root, "", "team"))
      val activeMemberId = text(required(root, "", "activeMemberId"), "activeMemberId")
      val active =
        team.lastOrNull { it.id == activeMemberId } ?: throw StateFault("unknown_active_member", "activeMemberId")
      return RenderState(project, team.sortedWith(ROSTER_ORDER), active)
    }

    private fun project(value: JsonNode): Project {
      val project = objectAt(value, "project")
      rejectKeysOutside(project, "project", PROJECT_KEYS, "unknown_field")
      val id = required(project, "project", "id")
      if (!id.isNumber) throw StateFault("invalid_field", "project.id")
      // A JSON number is a double in JavaScript: 7 and 7.0 are the same whole number.
      val number = if (id.isIntegralNumber && id.canConvertToLong()) id.longValue().toDouble() else id.doubleValue()
      if (number != Math.rint(number) || number < 1 || number > MAX_PROJECT_ID)
        throw StateFault("invalid_field", "project.id")
      return Project(
        singleLine(required(project, "project", "name"), "project.name", 200),
        url(project.get("url")),
        description(project.get("description")),
        techField(project, "backendLanguage", "Kotlin"),
        techField(project, "backendFramework", "Spring Boot"),
        techField(project, "frontendLanguage", "TypeScript"),
        techField(project, "frontendFramework", "Vue.js"),
      )
    }

    private fun url(value: JsonNode?): String? {
      if (value == null || value.isNull) return null
      val path = "project.url"
      val trimmed = trim(lengthChecked(value, path, 2048))
      if (trimmed.isEmpty()) return null
      checkSingleLine(trimmed, path)
      if (!URL_SCHEME.matches(trimmed)) throw StateFault("invalid_field", path)
      val rest = trimmed.substring(trimmed.indexOf("//") + 2)
      var authorityEnd = 0
      while (authorityEnd < rest.length && "/?#".indexOf(rest[authorityEnd]) < 0) authorityEnd++
      if (authorityEnd == 0 || trimmed.codePoints().anyMatch(Unicode13::isWhiteSpace))
        throw StateFault("invalid_field", path)
      return trimmed
    }

    private fun description(value: JsonNode?): String? {
      if (value == null || value.isNull) return null
      val path = "project.description"
      val text = lengthChecked(value, path, 2000)
      val collapsed = StringBuilder(text.length)
      var inWhiteSpace = false
      var i = 0
      while (i < text.length) {
        val c = text.codePointAt(i)
        i += Character.charCount(c)
        if (Unicode13.isWhiteSpace(c)) {
          if (!inWhiteSpace) collapsed.append(' ')
          inWhiteSpace = true
        } else {
          collapsed.appendCodePoint(c)
          inWhiteSpace = false
        }
      }
      val result = trim(collapsed.toString())
      if (result.codePoints().anyMatch(Unicode13::isControl)) throw StateFault("invalid_field", path)
      return result.ifEmpty { null }
    }

    private fun techField(project: JsonNode, field: String, fallback: String): String {
      if (!project.has(field)) return fallback
      val path = keyPath("project", field)
      val value = singleLine(project.get(field), path, 100)
      if (value == EM_DASH) throw StateFault("invalid_field", path)
      return value
    }

    private fun team(value: JsonNode): List<Member> {
      if (!value.isArray) throw StateFault("invalid_field", "team")
      if (value.size() == 0) throw StateFault("empty_team", "team")
      if (value.size() > MAX_TEAM) throw StateFault("invalid_field", "team")
      val team = (0 until value.size()).map { index -> member(value.get(index), "team[$index]") }
      val ids = HashSet<String>()
      team.forEachIndexed { index, member ->
        if (!ids.add(member.id)) throw StateFault("duplicate_member", "team[$index].id")
      }
      val salutations = HashSet<String>()
      team.forEachIndexed { index, member ->
        if (!salutations.add(Unicode13.lowerCase(member.salutation)))
          throw StateFault("duplicate_member", "team[$index].salutation")
      }
      return team
    }

    private fun member(value: JsonNode, path: String): Member {
      val member = objectAt(value, path)
      // Privacy first: a key outside the allowlist is reported before anything else.
      rejectKeysOutside(member, path, MEMBER_KEYS, "forbidden_field")
      val idPath = keyPath(path, "id")
      val id = text(required(member, path, "id"), idPath)
      if (id.isEmpty()) throw StateFault("invalid_field", idPath)
      val createdAtPath = keyPath(path, "createdAt")
      val createdAt =
        Timestamp.parse(text(required(member, path, "createdAt"), createdAtPath))
          ?: throw StateFault("invalid_field", createdAtPath)
      val salutationPath = keyPath(path, "salutation")
      val salutation = singleLine(required(member, path, "salutation"), salutationPath, 64)
      if (!Unicode13.isLetter(salutation.codePointAt(0)) || salutation.indexOf('"') >= 0)
        throw StateFault("invalid_field", salutationPath)
      return Member(id, createdAt, salutation, briefing(member.get("teamBriefing"), keyPath(path, "teamBriefing")))
    }

    private fun briefing(value: JsonNode?, path: String): String? {
      if (value == null || value.isNull) return null
      val unified = OTHER_LINE_BREAK.replace(lengthChecked(value, path, 8000).replace("\r\n", "\n"), "\n")
      if (unified.codePoints().anyMatch { Unicode13.isControl(it) && it != '\t'.code && it != '\n'.code })
        throw StateFault("invalid_field", path)
      val lines = unified.split("\n").map(::stripEnd)
      var start = 0
      var end = lines.size
      while (start < end && lines[start].isEmpty()) start++
      while (end > start && lines[end - 1].isEmpty()) end--
      return if (start == end) null else lines.subList(start, end).joinToString("\n")
    }

    /** A string value in NFC; an unpaired surrogate has no UTF-8 form and is refused. */
    private fun text(value: JsonNode, path: String): String {
      if (!value.isTextual || Unicode13.hasUnpairedSurrogate(value.textValue()))
        throw StateFault("invalid_field", path)
      return Unicode13.nfc(value.textValue())
    }

    /** Lengths count code points after NFC and before trimming. */
    private fun lengthChecked(value: JsonNode, path: String, max: Int): String {
      val text = text(value, path)
      if (text.codePointCount(0, text.length) > max) throw StateFault("invalid_field", path)
      return text
    }

    private fun singleLine(value: JsonNode, path: String, max: Int): String {
      val trimmed = trim(lengthChecked(value, path, max))
      if (trimmed.isEmpty()) throw StateFault("invalid_field", path)
      checkSingleLine(trimmed, path)
      return trimmed
    }

    private fun checkSingleLine(value: String, path: String) {
      if (value.codePoints().anyMatch { Unicode13.isControl(it) || it == 0x2028 || it == 0x2029 })
        throw StateFault("invalid_field", path)
    }

    private fun trim(text: String): String {
      var start = 0
      var end = text.length
      while (start < end && Unicode13.isWhiteSpace(text.codePointAt(start))) start++
      while (end > start && Unicode13.isWhiteSpace(text.codePointBefore(end))) end--
      return text.substring(start, end)
    }

    private fun stripEnd(line: String): String {
      var end = line.length
      while (end > 0 && Unicode13.isWhiteSpace(line.codePointBefore(end))) end--
      return line.substring(0, end)
    }

    private fun objectAt(value: JsonNode, path: String): JsonNode {
      if (value !is ObjectNode) throw StateFault("invalid_field", path)
      return value
    }

    private fun required(obj: JsonNode, parent: String, key: String): JsonNode =
      obj.get(key) ?: throw StateFault("missing_field", keyPath(parent, key))

    private fun rejectKeysOutside(obj: JsonNode, parent: String, allowed: List<String>, code: String) {
      for (key in obj.fieldNames()) if (key !in allowed) throw StateFault(code, keyPath(parent, key))
    }

    /** The spec's path format: plain identifiers after a dot, any other key as a JSON string. */
    fun keyPath(parent: String, key: String): String =
      when {
        !PLAIN_IDENTIFIER.matches(key) -> parent + "[" + Json.quote(key) + "]"
        parent.isEmpty() -> key
        else -> "$parent.$key"
      }

    /** Code point order; String.compareTo compares UTF-16 units, which differs above U+FFFF. */
    fun byCodePoint(left: String, right: String): Int {
      var i = 0
      var j = 0
      while (i < left.length && j < right.length) {
        val a = left.codePointAt(i)
        val b = right.codePointAt(j)
        if (a != b) return a.compareTo(b)
        i += Character.charCount(a)
        j += Character.charCount(b)
      }
      return (i < left.length).compareTo(j < right.length)
    }
  }
}
