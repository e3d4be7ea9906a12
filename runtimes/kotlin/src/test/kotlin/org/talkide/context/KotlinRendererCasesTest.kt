package org.talkide.context

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import org.talkide.contextspec.ContextRenderer
import org.talkide.contextspec.MaraContextRendererTestCases
import org.talkide.contextspec.RenderAnswer

/**
 * This runtime's renderer against every CLAUDE.md case, through the generated class from
 * packages/context-spec/kotlin, compiled here exactly as a backend would compile it.
 */
class KotlinRendererCasesTest :
  MaraContextRendererTestCases(
    ContextRenderer { state, output ->
      try {
        val rendered = MaraContextRenderer.render(state)
        RenderAnswer.Rendered(if (output.isEmpty()) rendered.single else rendered.splitFile(output))
      } catch (fault: StateFault) {
        RenderAnswer.Refused(fault.code, fault.path)
      }
    }
  ) {

  @Test
  fun `the split files give back the single file`() {
    val rendered =
      MaraContextRenderer.render(
        """{"project":{"id":1,"name":"P"},"team":[{"id":"a","createdAt":"2026-01-01T00:00:00Z","salutation":"Eva"}],"activeMemberId":"a"}"""
      )
    assertEquals(
      rendered.single,
      rendered.splitClaudeMd.replace("@" + MaraContextRenderer.ACTIVE_WRITER_PATH + "\n", rendered.activeWriter),
    )
  }
}
