package org.talkide.context

import com.fasterxml.jackson.core.JsonProcessingException
import com.fasterxml.jackson.databind.DeserializationFeature
import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.json.JsonMapper

/** Strict JSON (RFC 8259) through Jackson, and JSON strings written as JavaScript writes them. */
internal object Json {
  // "{} x" is not one JSON document; Jackson would stop after "{}" by default.
  private val MAPPER = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build()

  /** The document, or null when the text is not exactly one JSON value. */
  fun parse(text: String): JsonNode? =
    try {
      val node: JsonNode? = MAPPER.readTree(text)
      if (node == null || node.isMissingNode) null else node
    } catch (notJson: JsonProcessingException) {
      null
    }

  /**
   * A JSON string literal, escaped exactly as JavaScript's JSON.stringify escapes it (the
   * spec's path format is defined by it): the short escapes, other controls as `\u00XX`,
   * unpaired surrogates as `\uXXXX`, everything else as it is.
   */
  fun quote(text: String): String {
    val out = StringBuilder(text.length + 2).append('"')
    for (i in text.indices) {
      val c = text[i]
      when (c) {
        '"' -> out.append("\\\"")
        '\\' -> out.append("\\\\")
        '\b' -> out.append("\\b")
        '\u000C' -> out.append("\\f")
        '\n' -> out.append("\\n")
        '\r' -> out.append("\\r")
        '\t' -> out.append("\\t")
        else -> {
          val paired =
            (c.isHighSurrogate() && i + 1 < text.length && text[i + 1].isLowSurrogate()) ||
              (c.isLowSurrogate() && i > 0 && text[i - 1].isHighSurrogate())
          if (c.code < 0x20 || (c.isSurrogate() && !paired)) out.append(String.format("\\u%04x", c.code))
          else out.append(c)
        }
      }
    }
    return out.append('"').toString()
  }
}
