package org.talkide.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** This runtime's renderer against every CLAUDE.md case, through MaraContextRendererTestCases. */
class JvmRendererCasesTest {

  private static MaraContextRendererTestCases.Result adapt(
      String state, Function<ClaudeMdRenderer.Rendered, Map<String, String>> files) {
    try {
      return MaraContextRendererTestCases.Result.files(files.apply(ClaudeMdRenderer.render(state)));
    } catch (StateFault fault) {
      return MaraContextRendererTestCases.Result.refused(fault.code(), fault.path());
    }
  }

  @TestFactory
  Stream<DynamicTest> singleFile() {
    return MaraContextRendererTestCases.suite(
        "claude-md", state -> adapt(state, rendered -> Map.of("", rendered.single())));
  }

  @TestFactory
  Stream<DynamicTest> splitForm() {
    return MaraContextRendererTestCases.suite(
        "claude-md-split",
        state ->
            adapt(
                state,
                rendered ->
                    Map.of(
                        "CLAUDE.md", rendered.splitClaudeMd(),
                        ClaudeMdRenderer.ACTIVE_WRITER_PATH, rendered.activeWriter())));
  }

  @Test
  void theSuitesAreNotEmpty() {
    var dir = MaraContextRendererTestCases.specDirectory();
    assertTrue(MaraContextRendererTestCases.caseCount(dir, "claude-md") > 100);
    assertTrue(MaraContextRendererTestCases.caseCount(dir, "claude-md-split") > 0);
  }

  @Test
  void theSplitFilesGiveBackTheSingleFile() throws StateFault {
    var rendered =
        ClaudeMdRenderer.render(
            "{\"project\":{\"id\":1,\"name\":\"P\"},\"team\":[{\"id\":\"a\",\"createdAt\":"
                + "\"2026-01-01T00:00:00Z\",\"salutation\":\"Eva\"}],\"activeMemberId\":\"a\"}");
    assertEquals(
        rendered.single(),
        rendered.splitClaudeMd().replace("@.talkide/active-writer.md\n", rendered.activeWriter()));
  }
}
