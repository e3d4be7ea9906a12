package org.talkide.context

import java.lang.management.ManagementFactory
import java.nio.file.Files
import java.nio.file.Path
import java.security.MessageDigest
import java.util.HexFormat
import java.util.Locale

/**
 * In-process timings for packages/renderer/BENCHMARKS.md: `bench <state.json>...` prints one
 * JSON line per state and task with the median ns/op over 7 rounds of 500 ms, after a warm-up
 * that lets the JIT compile the code. Each round measures both the wall clock and the CPU time
 * of the timing thread: on a shared, overloaded machine the JVM's thread spends most of the
 * wall time waiting for a core, and only the CPU time says what the code costs.
 */
internal object Bench {
  private const val ROUNDS = 7
  private const val ROUND_NANOS = 500_000_000L
  private const val WARMUP_NANOS = 10_000_000_000L
  private val THREADS = ManagementFactory.getThreadMXBean()
  private var sink = 0L

  fun run(files: List<String>) {
    for (file in files) {
      val json = Files.readString(Path.of(file), Charsets.UTF_8)
      val state =
        try {
          RenderState.from(Json.parse(json) ?: throw StateFault("invalid_field", ""))
        } catch (fault: StateFault) {
          throw IllegalArgumentException("$file: the benchmark state was refused: ${fault.message}")
        }
      val renderOnly = { MaraContextRenderer.render(state).single }
      val parseAndRender = { MaraContextRenderer.render(json).single }
      val sha256 = sha256(renderOnly())
      report(file, "render only", renderOnly, sha256)
      report(file, "JSON text to bytes", parseAndRender, sha256)
    }
    System.err.println("(checksum ${sink % 997})")
  }

  private fun report(file: String, task: String, run: () -> String, sha256: String) {
    time(run, WARMUP_NANOS)
    val wall = DoubleArray(ROUNDS)
    val cpu = DoubleArray(ROUNDS)
    for (round in 0 until ROUNDS) {
      val perOp = time(run, ROUND_NANOS)
      wall[round] = perOp[0]
      cpu[round] = perOp[1]
    }
    wall.sort()
    cpu.sort()
    val median = cpu[ROUNDS / 2]
    println(
      String.format(
        Locale.ROOT,
        "{\"state\":%s,\"task\":%s,\"nsPerOp\":%.1f,\"spread\":%.1f,\"wallNsPerOp\":%.1f,\"sha256\":%s,\"java\":%s}",
        Json.quote(file),
        Json.quote(task),
        median,
        100 * (cpu[ROUNDS - 1] - cpu[0]) / median,
        wall[ROUNDS / 2],
        Json.quote(sha256),
        Json.quote(System.getProperty("java.version")),
      )
    )
  }

  private fun sha256(text: String): String =
    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.toByteArray(Charsets.UTF_8)))

  /** Wall-clock and thread CPU nanoseconds per call, over batches of 32 calls. */
  private fun time(run: () -> String, budget: Long): DoubleArray {
    var calls = 0L
    val start = System.nanoTime()
    val cpuStart = THREADS.currentThreadCpuTime
    var elapsed: Long
    do {
      repeat(32) {
        val text = run()
        sink += text[text.length shr 1].code
      }
      calls += 32
      elapsed = System.nanoTime() - start
    } while (elapsed < budget)
    val cpu = THREADS.currentThreadCpuTime - cpuStart
    return doubleArrayOf(elapsed.toDouble() / calls, cpu.toDouble() / calls)
  }
}
