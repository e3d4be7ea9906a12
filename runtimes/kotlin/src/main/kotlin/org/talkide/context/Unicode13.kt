package org.talkide.context

import java.text.Normalizer
import java.util.Locale

/**
 * The spec's character rules, bound to Unicode 13.0.0 ("Unicode version" in
 * spec/claude-md.md). Java 17's own database is Unicode 13.0.0, so on it the list of code
 * points that 13.0.0 leaves unassigned changes nothing; on a newer JDK (19 and later) it keeps
 * those code points out of letters, case mappings and normalization, as the spec requires.
 */
internal object Unicode13 {
  /** The data file of @talkide/context-spec, copied into the jar by the build. */
  const val UNASSIGNED_RESOURCE = "/unicode/unassigned-13.0.0.txt"

  /** Inclusive ranges, sorted: first0, last0, first1, last1, ... */
  private val UNASSIGNED: IntArray = readUnassigned()

  fun isUnassigned(codePoint: Int): Boolean {
    var low = 0
    var high = UNASSIGNED.size / 2 - 1
    while (low <= high) {
      val middle = (low + high) ushr 1
      when {
        codePoint < UNASSIGNED[2 * middle] -> high = middle - 1
        codePoint > UNASSIGNED[2 * middle + 1] -> low = middle + 1
        else -> return true
      }
    }
    return false
  }

  /** White_Space, as the spec lists it (not Character.isWhitespace, which differs). */
  fun isWhiteSpace(c: Int): Boolean =
    c in 0x09..0x0D || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || c in 0x2000..0x200A ||
      c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000

  /** General category Cc: U+0000–U+001F and U+007F–U+009F, in every Unicode version. */
  fun isControl(c: Int): Boolean = c <= 0x1F || c in 0x7F..0x9F

  fun isLetter(codePoint: Int): Boolean = Character.isLetter(codePoint) && !isUnassigned(codePoint)

  fun nfc(text: String): String = piecewise(text) { Normalizer.normalize(it, Normalizer.Form.NFC) }

  /** Default lower-casing: the same in every locale. */
  fun lowerCase(text: String): String = piecewise(text) { it.lowercase(Locale.ROOT) }

  /**
   * Applies a function of the runtime to the pieces between code points that Unicode 13.0.0
   * leaves unassigned; such a code point is a wall for NFC and for case contexts there.
   */
  private inline fun piecewise(text: String, transform: (String) -> String): String {
    var out: StringBuilder? = null
    var pieceStart = 0
    var i = 0
    while (i < text.length) {
      val codePoint = text.codePointAt(i)
      val next = i + Character.charCount(codePoint)
      if (Character.isDefined(codePoint) && isUnassigned(codePoint)) {
        val builder = out ?: StringBuilder(text.length).also { out = it }
        builder.append(transform(text.substring(pieceStart, i))).append(text, i, next)
        pieceStart = next
      }
      i = next
    }
    val builder = out ?: return transform(text)
    return builder.append(transform(text.substring(pieceStart))).toString()
  }

  fun hasUnpairedSurrogate(text: String): Boolean {
    var i = 0
    while (i < text.length) {
      val unit = text[i]
      if (unit.isHighSurrogate()) {
        if (i + 1 < text.length && text[i + 1].isLowSurrogate()) i++ else return true
      } else if (unit.isLowSurrogate()) {
        return true
      }
      i++
    }
    return false
  }

  private fun readUnassigned(): IntArray {
    val stream =
      Unicode13::class.java.getResourceAsStream(UNASSIGNED_RESOURCE)
        ?: throw IllegalStateException(
          "The jar lacks $UNASSIGNED_RESOURCE: build it with runtimes/kotlin/build.sh."
        )
    val ranges = mutableListOf<Int>()
    stream.bufferedReader(Charsets.UTF_8).useLines { lines ->
      for (line in lines) {
        val data = line.substringBefore('#').trim()
        if (data.isEmpty()) continue
        val first = data.substringBefore("..").toInt(16)
        val last = if (data.contains("..")) data.substringAfter("..").toInt(16) else first
        ranges += first
        ranges += last
      }
    }
    return ranges.toIntArray()
  }
}
