package org.talkide.context;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * The spec's character rules, bound to Unicode 13.0.0 ("Unicode version" in
 * spec/claude-md.md). Java 17's own database is Unicode 13.0.0, so on it the list of code
 * points that 13.0.0 leaves unassigned changes nothing; on a newer JDK (19 and later) it keeps
 * those code points out of letters, case mappings and normalization, as the spec requires.
 */
final class Unicode13 {
  /** The data file of @talkide/context-spec, copied into the jar by the build. */
  static final String UNASSIGNED_RESOURCE = "/unicode/unassigned-13.0.0.txt";

  /** Inclusive ranges, sorted: first0, last0, first1, last1, ... */
  private static final int[] UNASSIGNED = readUnassigned();

  private Unicode13() {}

  static boolean isUnassigned(int codePoint) {
    int low = 0;
    int high = UNASSIGNED.length / 2 - 1;
    while (low <= high) {
      int middle = (low + high) >>> 1;
      if (codePoint < UNASSIGNED[2 * middle]) high = middle - 1;
      else if (codePoint > UNASSIGNED[2 * middle + 1]) low = middle + 1;
      else return true;
    }
    return false;
  }

  /** White_Space, as the spec lists it (not Character.isWhitespace, which differs). */
  static boolean isWhiteSpace(int c) {
    return (c >= 0x09 && c <= 0x0D)
        || c == 0x20
        || c == 0x85
        || c == 0xA0
        || c == 0x1680
        || (c >= 0x2000 && c <= 0x200A)
        || c == 0x2028
        || c == 0x2029
        || c == 0x202F
        || c == 0x205F
        || c == 0x3000;
  }

  /** General category Cc: U+0000–U+001F and U+007F–U+009F, in every Unicode version. */
  static boolean isControl(int c) {
    return c <= 0x1F || (c >= 0x7F && c <= 0x9F);
  }

  static boolean isLetter(int codePoint) {
    return Character.isLetter(codePoint) && !isUnassigned(codePoint);
  }

  static String nfc(String text) {
    return piecewise(text, piece -> Normalizer.normalize(piece, Normalizer.Form.NFC));
  }

  /** Default lower-casing: the same in every locale. */
  static String lowerCase(String text) {
    return piecewise(text, piece -> piece.toLowerCase(Locale.ROOT));
  }

  /**
   * Applies a function of the runtime to the pieces between code points that Unicode 13.0.0
   * leaves unassigned; such a code point is a wall for NFC and for case contexts there.
   */
  private static String piecewise(String text, UnaryOperator<String> transform) {
    StringBuilder out = null;
    int pieceStart = 0;
    for (int i = 0; i < text.length(); ) {
      int codePoint = text.codePointAt(i);
      int next = i + Character.charCount(codePoint);
      if (Character.isDefined(codePoint) && isUnassigned(codePoint)) {
        if (out == null) out = new StringBuilder(text.length());
        out.append(transform.apply(text.substring(pieceStart, i))).append(text, i, next);
        pieceStart = next;
      }
      i = next;
    }
    if (out == null) return transform.apply(text);
    return out.append(transform.apply(text.substring(pieceStart))).toString();
  }

  static boolean hasUnpairedSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char unit = text.charAt(i);
      if (Character.isHighSurrogate(unit)) {
        if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) i++;
        else return true;
      } else if (Character.isLowSurrogate(unit)) {
        return true;
      }
    }
    return false;
  }

  private static int[] readUnassigned() {
    InputStream stream = Unicode13.class.getResourceAsStream(UNASSIGNED_RESOURCE);
    if (stream == null)
      throw new IllegalStateException(
          "The jar lacks " + UNASSIGNED_RESOURCE + ": build it with runtimes/jvm/build.sh.");
    List<int[]> ranges = new ArrayList<>();
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        int comment = line.indexOf('#');
        String data = (comment < 0 ? line : line.substring(0, comment)).trim();
        if (data.isEmpty()) continue;
        int dots = data.indexOf("..");
        int first = Integer.parseInt(dots < 0 ? data : data.substring(0, dots), 16);
        int last = dots < 0 ? first : Integer.parseInt(data.substring(dots + 2), 16);
        ranges.add(new int[] {first, last});
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int[] flat = new int[ranges.size() * 2];
    for (int i = 0; i < ranges.size(); i++) {
      flat[2 * i] = ranges.get(i)[0];
      flat[2 * i + 1] = ranges.get(i)[1];
    }
    return flat;
  }
}
