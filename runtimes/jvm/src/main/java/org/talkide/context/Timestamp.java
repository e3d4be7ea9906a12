package org.talkide.context;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code createdAt} value as the exact instant it stands for (spec/claude-md.md, "Input
 * document"): RFC 3339 with an offset, 1–9 fractional digits, {@code T} and {@code Z} in
 * either case, no leap second, offsets up to 23:59. java.time's parsers are not used: they
 * accept more than this grammar and refuse offsets beyond 18 hours.
 */
record Timestamp(long epochSeconds, int nanoseconds) implements Comparable<Timestamp> {
  private static final Pattern RFC3339 =
      Pattern.compile(
          "([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})"
              + "(?:\\.([0-9]{1,9}))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))");

  /** The instant, or null when the text is not a timestamp the spec admits. */
  static Timestamp parse(String text) {
    Matcher match = RFC3339.matcher(text);
    if (!match.matches()) return null;
    int hour = Integer.parseInt(match.group(4));
    int minute = Integer.parseInt(match.group(5));
    int second = Integer.parseInt(match.group(6));
    if (hour > 23 || minute > 59 || second > 59) return null;
    long epochDay;
    try {
      epochDay =
          LocalDate.of(
                  Integer.parseInt(match.group(1)),
                  Integer.parseInt(match.group(2)),
                  Integer.parseInt(match.group(3)))
              .toEpochDay();
    } catch (DateTimeException noSuchDate) {
      return null;
    }
    long offsetSeconds = 0;
    if (match.group(8) != null) {
      int offsetHours = Integer.parseInt(match.group(9));
      int offsetMinutes = Integer.parseInt(match.group(10));
      if (offsetHours > 23 || offsetMinutes > 59) return null;
      offsetSeconds = (match.group(8).equals("-") ? -1 : 1) * (offsetHours * 3600L + offsetMinutes * 60L);
    }
    String fraction = match.group(7);
    int nanoseconds = fraction == null ? 0 : Integer.parseInt((fraction + "00000000").substring(0, 9));
    long local = epochDay * 86_400L + hour * 3600L + minute * 60L + second;
    return new Timestamp(local - offsetSeconds, nanoseconds);
  }

  @Override
  public int compareTo(Timestamp other) {
    int bySeconds = Long.compare(epochSeconds, other.epochSeconds);
    return bySeconds != 0 ? bySeconds : Integer.compare(nanoseconds, other.nanoseconds);
  }
}
