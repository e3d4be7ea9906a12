package org.talkide.context;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A render state after the validation and normalization of spec/claude-md.md ("Input
 * document", "Normalization and validation"), with the team in roster order. Blank optional
 * values are null, and render as the em-dash.
 */
record RenderState(Project project, List<Member> team, Member activeMember) {

  record Project(
      String name,
      String url,
      String description,
      String backendLanguage,
      String backendFramework,
      String frontendLanguage,
      String frontendFramework) {}

  record Member(String id, Timestamp createdAt, String salutation, String teamBriefing) {}

  private static final List<String> TOP_LEVEL_KEYS = List.of("project", "team", "activeMemberId");
  private static final List<String> PROJECT_KEYS =
      List.of(
          "id",
          "name",
          "url",
          "description",
          "backendLanguage",
          "backendFramework",
          "frontendLanguage",
          "frontendFramework");
  /** The privacy allowlist: any other key of a member is forbidden_field. */
  private static final List<String> MEMBER_KEYS =
      List.of("id", "createdAt", "salutation", "teamBriefing");

  private static final int MAX_TEAM = 50;
  private static final String EM_DASH = "\u2014";
  private static final double MAX_PROJECT_ID = 9_007_199_254_740_991d;
  private static final Pattern PLAIN_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  /** {@code \r}, U+0085, U+2028, U+2029 (after {@code \r\n} became one line feed). */
  private static final Pattern OTHER_LINE_BREAK = Pattern.compile("[\r\u0085\u2028\u2029]");
  private static final Pattern URL_SCHEME = Pattern.compile("(?i)https?://.*", Pattern.DOTALL);

  /** Roster order: createdAt as an instant, then id by code point value. */
  private static final Comparator<Member> ROSTER_ORDER =
      Comparator.comparing(Member::createdAt).thenComparing(Member::id, RenderState::byCodePoint);

  static RenderState from(JsonNode document) throws StateFault {
    JsonNode root = object(document, "");
    rejectKeysOutside(root, "", TOP_LEVEL_KEYS, "unknown_field");
    Project project = project(required(root, "", "project"));
    List<Member> team = team(required(root, "", "team"));
    String activeMemberId = text(required(root, "", "activeMemberId"), "activeMemberId");
    Member active = null;
    for (Member member : team) if (member.id().equals(activeMemberId)) active = member;
    if (active == null) throw new StateFault("unknown_active_member", "activeMemberId");
    List<Member> roster = new ArrayList<>(team);
    roster.sort(ROSTER_ORDER);
    return new RenderState(project, List.copyOf(roster), active);
  }

  private static Project project(JsonNode value) throws StateFault {
    JsonNode project = object(value, "project");
    rejectKeysOutside(project, "project", PROJECT_KEYS, "unknown_field");
    JsonNode id = required(project, "project", "id");
    if (!id.isNumber()) throw new StateFault("invalid_field", "project.id");
    // A JSON number is a double in JavaScript: 7 and 7.0 are the same whole number.
    double number = id.isIntegralNumber() && id.canConvertToLong() ? id.longValue() : id.doubleValue();
    if (number != Math.rint(number) || number < 1 || number > MAX_PROJECT_ID)
      throw new StateFault("invalid_field", "project.id");
    return new Project(
        singleLine(required(project, "project", "name"), "project.name", 200),
        url(project.get("url")),
        description(project.get("description")),
        techField(project, "backendLanguage", "Kotlin"),
        techField(project, "backendFramework", "Spring Boot"),
        techField(project, "frontendLanguage", "TypeScript"),
        techField(project, "frontendFramework", "Vue.js"));
  }

  private static String url(JsonNode value) throws StateFault {
    if (value == null || value.isNull()) return null;
    String path = "project.url";
    String trimmed = trim(lengthChecked(value, path, 2048));
    if (trimmed.isEmpty()) return null;
    checkSingleLine(trimmed, path);
    if (!URL_SCHEME.matcher(trimmed).matches()) throw new StateFault("invalid_field", path);
    String rest = trimmed.substring(trimmed.indexOf("//") + 2);
    int authorityEnd = 0;
    while (authorityEnd < rest.length() && "/?#".indexOf(rest.charAt(authorityEnd)) < 0)
      authorityEnd++;
    if (authorityEnd == 0 || trimmed.codePoints().anyMatch(Unicode13::isWhiteSpace))
      throw new StateFault("invalid_field", path);
    return trimmed;
  }

  private static String description(JsonNode value) throws StateFault {
    if (value == null || value.isNull()) return null;
    String path = "project.description";
    String text = lengthChecked(value, path, 2000);
    StringBuilder collapsed = new StringBuilder(text.length());
    boolean inWhiteSpace = false;
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      i += Character.charCount(c);
      if (Unicode13.isWhiteSpace(c)) {
        if (!inWhiteSpace) collapsed.append(' ');
        inWhiteSpace = true;
      } else {
        collapsed.appendCodePoint(c);
        inWhiteSpace = false;
      }
    }
    String result = trim(collapsed.toString());
    if (result.codePoints().anyMatch(Unicode13::isControl))
      throw new StateFault("invalid_field", path);
    return result.isEmpty() ? null : result;
  }

  private static String techField(JsonNode project, String field, String fallback)
      throws StateFault {
    if (!project.has(field)) return fallback;
    String path = keyPath("project", field);
    String value = singleLine(project.get(field), path, 100);
    if (value.equals(EM_DASH)) throw new StateFault("invalid_field", path);
    return value;
  }

  private static List<Member> team(JsonNode value) throws StateFault {
    if (!value.isArray()) throw new StateFault("invalid_field", "team");
    if (value.size() == 0) throw new StateFault("empty_team", "team");
    if (value.size() > MAX_TEAM) throw new StateFault("invalid_field", "team");
    List<Member> team = new ArrayList<>(value.size());
    for (int index = 0; index < value.size(); index++)
      team.add(member(value.get(index), "team[" + index + "]"));
    Set<String> ids = new HashSet<>();
    for (int index = 0; index < team.size(); index++)
      if (!ids.add(team.get(index).id()))
        throw new StateFault("duplicate_member", "team[" + index + "].id");
    Set<String> salutations = new HashSet<>();
    for (int index = 0; index < team.size(); index++)
      if (!salutations.add(Unicode13.lowerCase(team.get(index).salutation())))
        throw new StateFault("duplicate_member", "team[" + index + "].salutation");
    return team;
  }

  private static Member member(JsonNode value, String path) throws StateFault {
    JsonNode member = object(value, path);
    // Privacy first: a key outside the allowlist is reported before anything else.
    rejectKeysOutside(member, path, MEMBER_KEYS, "forbidden_field");
    String idPath = keyPath(path, "id");
    String id = text(required(member, path, "id"), idPath);
    if (id.isEmpty()) throw new StateFault("invalid_field", idPath);
    String createdAtPath = keyPath(path, "createdAt");
    Timestamp createdAt = Timestamp.parse(text(required(member, path, "createdAt"), createdAtPath));
    if (createdAt == null) throw new StateFault("invalid_field", createdAtPath);
    String salutationPath = keyPath(path, "salutation");
    String salutation = singleLine(required(member, path, "salutation"), salutationPath, 64);
    if (!Unicode13.isLetter(salutation.codePointAt(0)) || salutation.indexOf('"') >= 0)
      throw new StateFault("invalid_field", salutationPath);
    return new Member(
        id, createdAt, salutation, briefing(member.get("teamBriefing"), keyPath(path, "teamBriefing")));
  }

  private static String briefing(JsonNode value, String path) throws StateFault {
    if (value == null || value.isNull()) return null;
    String unified =
        OTHER_LINE_BREAK.matcher(lengthChecked(value, path, 8000).replace("\r\n", "\n")).replaceAll("\n");
    if (unified.codePoints().anyMatch(c -> Unicode13.isControl(c) && c != '\t' && c != '\n'))
      throw new StateFault("invalid_field", path);
    String[] lines = unified.split("\n", -1);
    int start = 0;
    int end = lines.length;
    for (int i = 0; i < lines.length; i++) lines[i] = stripEnd(lines[i]);
    while (start < end && lines[start].isEmpty()) start++;
    while (end > start && lines[end - 1].isEmpty()) end--;
    return start == end ? null : String.join("\n", List.of(lines).subList(start, end));
  }

  /** A string value in NFC; an unpaired surrogate has no UTF-8 form and is refused. */
  private static String text(JsonNode value, String path) throws StateFault {
    if (!value.isTextual() || Unicode13.hasUnpairedSurrogate(value.textValue()))
      throw new StateFault("invalid_field", path);
    return Unicode13.nfc(value.textValue());
  }

  /** Lengths count code points after NFC and before trimming. */
  private static String lengthChecked(JsonNode value, String path, int max) throws StateFault {
    String text = text(value, path);
    if (text.codePointCount(0, text.length()) > max) throw new StateFault("invalid_field", path);
    return text;
  }

  private static String singleLine(JsonNode value, String path, int max) throws StateFault {
    String trimmed = trim(lengthChecked(value, path, max));
    if (trimmed.isEmpty()) throw new StateFault("invalid_field", path);
    checkSingleLine(trimmed, path);
    return trimmed;
  }

  private static void checkSingleLine(String value, String path) throws StateFault {
    if (value.codePoints().anyMatch(c -> Unicode13.isControl(c) || c == 0x2028 || c == 0x2029))
      throw new StateFault("invalid_field", path);
  }

  private static String trim(String text) {
    int start = 0;
    int end = text.length();
    while (start < end && Unicode13.isWhiteSpace(text.codePointAt(start))) start++;
    while (end > start && Unicode13.isWhiteSpace(text.codePointBefore(end))) end--;
    return text.substring(start, end);
  }

  private static String stripEnd(String line) {
    int end = line.length();
    while (end > 0 && Unicode13.isWhiteSpace(line.codePointBefore(end))) end--;
    return line.substring(0, end);
  }

  private static JsonNode object(JsonNode value, String path) throws StateFault {
    if (!(value instanceof ObjectNode)) throw new StateFault("invalid_field", path);
    return value;
  }

  private static JsonNode required(JsonNode object, String parent, String key) throws StateFault {
    JsonNode value = object.get(key);
    if (value == null) throw new StateFault("missing_field", keyPath(parent, key));
    return value;
  }

  private static void rejectKeysOutside(
      JsonNode object, String parent, List<String> allowed, String code) throws StateFault {
    for (Iterator<String> keys = object.fieldNames(); keys.hasNext(); ) {
      String key = keys.next();
      if (!allowed.contains(key)) throw new StateFault(code, keyPath(parent, key));
    }
  }

  /** The spec's path format: plain identifiers after a dot, any other key as a JSON string. */
  static String keyPath(String parent, String key) {
    if (!PLAIN_IDENTIFIER.matcher(key).matches()) return parent + "[" + Json.quote(key) + "]";
    return parent.isEmpty() ? key : parent + "." + key;
  }

  /** Code point order; String.compareTo compares UTF-16 units, which differs above U+FFFF. */
  static int byCodePoint(String left, String right) {
    int i = 0;
    int j = 0;
    while (i < left.length() && j < right.length()) {
      int a = left.codePointAt(i);
      int b = right.codePointAt(j);
      if (a != b) return Integer.compare(a, b);
      i += Character.charCount(a);
      j += Character.charCount(b);
    }
    return Boolean.compare(i < left.length(), j < right.length());
  }
}
