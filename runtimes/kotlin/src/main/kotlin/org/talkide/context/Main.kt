@file:JvmName("Main")

package org.talkide.context

import kotlin.system.exitProcess

private const val REFUSED = 2
private const val USAGE = 64

/**
 * The runner protocol (spec/runner-protocol.md) as a command:
 * `java -jar talkide-context-kotlin.jar render [--file <file>]`. The render state comes on
 * standard input. Without `--file`, or with an empty one, the single CLAUDE.md is written to
 * standard output; `--file CLAUDE.md` or `--file .talkide/active-writer.md` writes that file of
 * the split form. A refused state writes one JSON line `{"code","path","message"}` to standard
 * error and exits with status 2; usage errors exit with 64. Offered a session by the runner
 * (TALKIDE_CONFORMANCE_SESSION=1), it answers every case in this one JVM (see [Session]).
 */
fun main(args: Array<String>) {
  if (args.isNotEmpty() && args[0] == "bench") {
    Bench.run(args.drop(1))
    return
  }
  val file = parseFile(args)
  if (file == null) {
    System.err.println(
      "usage: java -jar talkide-context-kotlin.jar render [--file CLAUDE.md|" +
        MaraContextRenderer.ACTIVE_WRITER_PATH +
        "]   (render state JSON on standard input)"
    )
    exitProcess(USAGE)
  }
  if (Session.requested()) {
    Session.serve { input -> render(input, file) }
    return
  }
  val answer = render(System.`in`.readAllBytes(), file)
  System.out.write(answer.stdout)
  System.out.flush()
  System.err.write(answer.stderr)
  System.err.flush()
  if (answer.exitCode != 0) exitProcess(answer.exitCode)
}

/** One case: the file's bytes (status 0), or the refusal line for standard error (status 2). */
private fun render(input: ByteArray, file: String): Session.Answer =
  try {
    val rendered = MaraContextRenderer.render(input)
    val output = if (file.isEmpty()) rendered.single else rendered.splitFile(file)
    Session.Answer(0, output.toByteArray(Charsets.UTF_8), ByteArray(0))
  } catch (fault: StateFault) {
    val line =
      "{\"code\":" + Json.quote(fault.code) + ",\"path\":" + Json.quote(fault.path) + ",\"message\":" +
        Json.quote("The render state was refused: " + fault.message + ".") + "}\n"
    Session.Answer(REFUSED, ByteArray(0), line.toByteArray(Charsets.UTF_8))
  }

/** The value of --file ("" for the single file), or null for a usage error. */
private fun parseFile(args: Array<String>): String? {
  if (args.size == 1 && args[0] == "render") return ""
  if (args.size != 3 || args[0] != "render" || args[1] != "--file") return null
  val file = args[2]
  return if (file.isEmpty() || file == "CLAUDE.md" || file == MaraContextRenderer.ACTIVE_WRITER_PATH) file else null
}
