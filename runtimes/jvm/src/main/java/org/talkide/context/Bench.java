package org.talkide.context;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

/**
 * In-process timings for packages/renderer/BENCHMARKS.md: {@code bench <state.json>...}
 * prints one JSON line per state and task with the median ns/op over 7 rounds of 500 ms,
 * after a warm-up that lets the JIT compile the code. Each round measures both the wall
 * clock and the CPU time of the timing thread: on a shared, overloaded machine the JVM's
 * thread spends most of the wall time waiting for a core, and only the CPU time says what
 * the code costs.
 */
final class Bench {
  private static final int ROUNDS = 7;
  private static final long ROUND_NANOS = 500_000_000L;
  private static final long WARMUP_NANOS = 10_000_000_000L;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static long sink;

  private Bench() {}

  static void main(String[] files) throws IOException {
    for (String file : files) {
      String json = Files.readString(Path.of(file), StandardCharsets.UTF_8);
      RenderState state;
      try {
        state = RenderState.from(Json.parse(json));
      } catch (StateFault fault) {
        throw new IllegalArgumentException(file + ": the benchmark state was refused: " + fault.getMessage());
      }
      Task renderOnly = () -> ClaudeMdRenderer.render(state).single();
      Task parseAndRender =
          () -> {
            try {
              return ClaudeMdRenderer.render(json).single();
            } catch (StateFault fault) {
              throw new IllegalStateException(fault);
            }
          };
      String sha256 = sha256(renderOnly.run());
      report(file, "render only", renderOnly, sha256);
      report(file, "JSON text to bytes", parseAndRender, sha256);
    }
    System.err.println("(checksum " + sink % 997 + ")");
  }

  interface Task {
    String run();
  }

  private static void report(String file, String task, Task run, String sha256) {
    time(run, WARMUP_NANOS);
    double[] wall = new double[ROUNDS];
    double[] cpu = new double[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      double[] perOp = time(run, ROUND_NANOS);
      wall[round] = perOp[0];
      cpu[round] = perOp[1];
    }
    Arrays.sort(wall);
    Arrays.sort(cpu);
    double median = cpu[ROUNDS / 2];
    System.out.printf(
        Locale.ROOT,
        "{\"state\":%s,\"task\":%s,\"nsPerOp\":%.1f,\"spread\":%.1f,\"wallNsPerOp\":%.1f,"
            + "\"sha256\":%s,\"java\":%s}%n",
        Json.quote(file),
        Json.quote(task),
        median,
        100 * (cpu[ROUNDS - 1] - cpu[0]) / median,
        wall[ROUNDS / 2],
        Json.quote(sha256),
        Json.quote(System.getProperty("java.version")));
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Wall-clock and thread CPU nanoseconds per call, over batches of 32 calls. */
  private static double[] time(Task run, long budget) {
    long calls = 0;
    long start = System.nanoTime();
    long cpuStart = THREADS.getCurrentThreadCpuTime();
    long elapsed;
    do {
      for (int i = 0; i < 32; i++) {
        String text = run.run();
        sink += text.charAt(text.length() >> 1);
      }
      calls += 32;
      elapsed = System.nanoTime() - start;
    } while (elapsed < budget);
    long cpu = THREADS.getCurrentThreadCpuTime() - cpuStart;
    return new double[] {(double) elapsed / calls, (double) cpu / calls};
  }
}
