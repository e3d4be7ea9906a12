package org.talkide.context

import java.time.DateTimeException
import java.time.LocalDate

/**
 * A `createdAt` value as the exact instant it stands for (spec/claude-md.md, "Input
 * document"): RFC 3339 with an offset, 1–9 fractional digits, `T` and `Z` in either case, no
 * leap second, offsets up to 23:59. java.time's parsers are not used: they accept more than
 * this grammar and refuse offsets beyond 18 hours.
 */
internal data class Timestamp(val epochSeconds: Long, val nanoseconds: Int) : Comparable<Timestamp> {
  override fun compareTo(other: Timestamp): Int =
    compareValuesBy(this, other, Timestamp::epochSeconds, Timestamp::nanoseconds)

  companion object {
    private val RFC3339 =
      Regex(
        "([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})" +
          "(?:\\.([0-9]{1,9}))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))"
      )

    /** The instant, or null when the text is not a timestamp the spec admits. */
    fun parse(text: String): Timestamp? {
      val match = RFC3339.matchEntire(text) ?: return null
      val group = match.groups
      fun number(index: Int): Int = group[index]!!.value.toInt()
      val hour = number(4)
      val minute = number(5)
      val second = number(6)
      if (hour > 23 || minute > 59 || second > 59) return null
      val epochDay =
        try {
          LocalDate.of(number(1), number(2), number(3)).toEpochDay()
        } catch (noSuchDate: DateTimeException) {
          return null
        }
      var offsetSeconds = 0L
      val sign = group[8]?.value
      if (sign != null) {
        val offsetHours = number(9)
        val offsetMinutes = number(10)
        if (offsetHours > 23 || offsetMinutes > 59) return null
        offsetSeconds = (if (sign == "-") -1 else 1) * (offsetHours * 3600L + offsetMinutes * 60L)
      }
      val fraction = group[7]?.value
      val nanoseconds = if (fraction == null) 0 else (fraction + "00000000").substring(0, 9).toInt()
      val local = epochDay * 86_400L + hour * 3600L + minute * 60L + second
      return Timestamp(local - offsetSeconds, nanoseconds)
    }
  }
}
