package org.talkide.context;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** Strict JSON (RFC 8259) through Jackson, and JSON strings written as JavaScript writes them. */
final class Json {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          // "{} x" is not one JSON document; Jackson would stop after "{}" by default.
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private Json() {}

  /** The document, or null when the text is not exactly one JSON value. */
  static JsonNode parse(String text) {
    try {
      JsonNode node = MAPPER.readTree(text);
      return node == null || node.isMissingNode() ? null : node;
    } catch (JsonProcessingException notJson) {
      return null;
    }
  }

  /**
   * A JSON string literal, escaped exactly as JavaScript's JSON.stringify escapes it (the
   * spec's path format is defined by it): the short escapes, other controls as {@code \}u00XX,
   * unpaired surrogates as {@code \}uXXXX, everything else as it is.
   */
  static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          boolean paired =
              Character.isHighSurrogate(c)
                      && i + 1 < text.length()
                      && Character.isLowSurrogate(text.charAt(i + 1))
                  || Character.isLowSurrogate(c)
                      && i > 0
                      && Character.isHighSurrogate(text.charAt(i - 1));
          if (c < 0x20 || (Character.isSurrogate(c) && !paired))
            out.append(String.format("\\u%04x", (int) c));
          else out.append(c);
        }
      }
    }
    return out.append('"').toString();
  }
}
