package org.talkide.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;

/**
 * The cases of {@code @talkide/context-spec} as JUnit 5 dynamic tests, for any renderer of
 * any JVM language: one test per case of a suite, driven by {@code test-cases.json} and the
 * case folders, comparing bytes exactly. Self-contained (JUnit 5 and Jackson only): copy this
 * file into a project's test sources and write
 *
 * <pre>{@code
 * @TestFactory
 * Stream<DynamicTest> claudeMd() {
 *   return MaraContextRendererTestCases.suite("claude-md", state -> myRenderer(state));
 * }
 * }</pre>
 *
 * The package directory is found through the system property {@code talkide.contextSpec.dir}
 * or the environment variable {@code TALKIDE_CONTEXT_SPEC_DIR} (the folder holding
 * {@code test-cases.json}, e.g. {@code node_modules/@talkide/context-spec}).
 */
public final class MaraContextRendererTestCases {

  /** What a renderer answers for one input: the output files, or a refusal. */
  public sealed interface Result permits Result.Files, Result.Refused {
    /** The files of a suite's outputs, keyed by the output's {@code arg} from suite.json. */
    record Files(Map<String, String> byArg) implements Result {}

    record Refused(String code, String path) implements Result {}

    /** A suite with one output (its {@code arg} is {@code ""}), e.g. the single CLAUDE.md. */
    static Result rendered(String text) {
      return new Files(Map.of("", text));
    }

    static Result files(Map<String, String> byArg) {
      return new Files(Map.copyOf(byArg));
    }

    static Result refused(String code, String path) {
      return new Refused(code, path);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private MaraContextRendererTestCases() {}

  /** The folder of @talkide/context-spec, from the system property or environment. */
  public static Path specDirectory() {
    String dir = System.getProperty("talkide.contextSpec.dir", System.getenv("TALKIDE_CONTEXT_SPEC_DIR"));
    if (dir == null || dir.isEmpty())
      throw new IllegalStateException(
          "Set the system property talkide.contextSpec.dir (or TALKIDE_CONTEXT_SPEC_DIR) to the"
              + " folder of @talkide/context-spec that holds test-cases.json.");
    return Path.of(dir);
  }

  /** One dynamic test per case of the suite, cases read from {@link #specDirectory()}. */
  public static Stream<DynamicTest> suite(String suite, Function<String, Result> renderer) {
    return suite(specDirectory(), suite, renderer);
  }

  public static Stream<DynamicTest> suite(
      Path specDir, String suite, Function<String, Result> renderer) {
    JsonNode index = readJson(specDir.resolve("test-cases.json"));
    Stream<JsonNode> cases =
        StreamSupport.stream(index.get("cases").spliterator(), false)
            .filter(specCase -> specCase.get("suite").asText().equals(suite));
    return cases.map(
        specCase ->
            DynamicTest.dynamicTest(
                suite + "/" + specCase.get("id").asText() + ": " + specCase.get("description").asText(),
                () -> check(specDir, specCase, renderer)));
  }

  /** Number of cases of a suite, so a caller can prove none were lost. */
  public static long caseCount(Path specDir, String suite) {
    JsonNode index = readJson(specDir.resolve("test-cases.json"));
    return StreamSupport.stream(index.get("cases").spliterator(), false)
        .filter(specCase -> specCase.get("suite").asText().equals(suite))
        .count();
  }

  private static void check(Path specDir, JsonNode specCase, Function<String, Result> renderer) {
    byte[] input = verifiedBytes(specDir, specCase.get("input").asText(), specCase.get("inputSha256").asText());
    Result result = renderer.apply(new String(input, StandardCharsets.UTF_8));
    JsonNode expectedError = specCase.get("expectedError");
    if (expectedError != null && !expectedError.isNull()) {
      Result.Refused refused =
          assertInstanceOf(Result.Refused.class, result, "the state must be refused, not rendered");
      assertEquals(
          expectedError.get("code").asText() + " at " + expectedError.get("path").asText(),
          refused.code() + " at " + refused.path());
      return;
    }
    if (result instanceof Result.Refused refused)
      fail("the state must render, but was refused: " + refused.code() + " at " + refused.path());
    Map<String, String> files = ((Result.Files) result).byArg();
    Map<String, String> want = new LinkedHashMap<>();
    Map<String, String> got = new LinkedHashMap<>();
    for (JsonNode output : specCase.get("outputs")) {
      String arg = output.get("arg").asText();
      byte[] expected = verifiedBytes(specDir, output.get("expected").asText(), output.get("sha256").asText());
      assertTrue(files.containsKey(arg), "the renderer gave no output for \"" + arg + "\"");
      want.put(arg, new String(expected, StandardCharsets.UTF_8));
      got.put(arg, files.get(arg));
    }
    // Byte comparison (a String of the expected UTF-8 bytes decodes one way only).
    for (String arg : want.keySet())
      assertEquals(
          sha256(want.get(arg).getBytes(StandardCharsets.UTF_8)) + "\n" + want.get(arg),
          sha256(got.get(arg).getBytes(StandardCharsets.UTF_8)) + "\n" + got.get(arg),
          "output \"" + arg + "\" (sha256, then text)");
  }

  /** The bytes of a case file, after checking them against the index (no line-ending drift). */
  private static byte[] verifiedBytes(Path specDir, String relative, String sha256) {
    try {
      byte[] bytes = Files.readAllBytes(specDir.resolve(relative));
      if (!sha256(bytes).equals(sha256))
        throw new IllegalStateException(
            relative + " does not match its sha256 in test-cases.json: was the checkout altered"
                + " (line endings, an editor)?");
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode readJson(Path file) {
    try {
      return JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
