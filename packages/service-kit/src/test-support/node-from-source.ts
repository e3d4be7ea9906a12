/**
 * V8's garbage-collector flags for every test process: the vitest workers (each project's
 * `execArgv`, through scripts/test-worker-flags.ts) and the programs they start
 * ({@link NODE_FROM_SOURCE}).
 *
 * `--external-memory-accounted-in-global-limit`: memory outside V8's heap (ArrayBuffers,
 * WebAssembly memories) counts toward the heap's one global limit instead of starting a full
 * garbage collection every time it has grown by 64 MB. Every embedded database is PGlite,
 * whose start allocates its WebAssembly memory and data files in such steps: in a worker whose
 * heap holds a test file's module graph (about 90 MB), one PGlite start set off about five full
 * collections of that whole heap. Measured on this 2-core machine: six PGlite starts beside an
 * 80 MB heap 3.8 → 1.7 s of CPU (22 → 4 collections); the work queue's PGlite suite 47–49 →
 * 36–40 s of CPU. A garbage-collector heuristic, not a change of behaviour: the tests still
 * collect (at the global limit), and programs started by users keep V8's defaults.
 */
export const TEST_GC_FLAGS: readonly string[] = ["--external-memory-accounted-in-global-limit"];

/**
 * The Node arguments for a program of this workspace that a test starts as its own process
 * (a service, a CLI, a lease holder), before the entry point: the workspace's sources through
 * the "@talkide/source" export condition, as vitest resolves them, `--liftoff-only`, and
 * {@link TEST_GC_FLAGS}, which the test workers run with too.
 *
 * Why the second: every service's embedded database is PGlite, PostgreSQL compiled to
 * WebAssembly. V8 compiles it with its baseline compiler (Liftoff) and then, on background
 * threads, again with its optimizing compiler (TurboFan) for every function that runs often.
 * A process a test starts lives for seconds, too short for the optimized code to repay that
 * compilation. Measured on this 2-core machine: a daemon's start took 3.9 -> 2.0 s of CPU; four
 * test files that start services as processes, alternating with the old build, 119-130 -> 96-98 s
 * of CPU; the whole vitest run 1,353 -> 1,107 s of CPU (727 -> 598 s; the old build's run began
 * with an empty compile cache, so part of that is the cache). The test workers keep V8's
 * defaults: with the flag, seven files run alone took 17% less CPU, but the whole run, where a
 * worker lives through many files, gained nothing (1,107 -> 1,096 s of CPU). It is a choice of
 * compiler, not of behaviour; programs started by users keep V8's defaults.
 */
export const NODE_FROM_SOURCE: readonly string[] = [
  "--conditions=@talkide/source",
  "--liftoff-only",
  ...TEST_GC_FLAGS,
];

/**
 * The test run's Node compile cache (`NODE_COMPILE_CACHE`, set in the root vitest.config.ts),
 * for a program a test starts with an environment of its own instead of the worker's: without
 * it, each start type-strips and compiles every module of the program again (a backend's start
 * about 2.6 -> 2.3 s of CPU with the cache on this 2-core machine). Empty when unset.
 */
export function compileCacheEnv(): Record<string, string> {
  const dir = process.env["NODE_COMPILE_CACHE"];
  return dir === undefined || dir === "" ? {} : { NODE_COMPILE_CACHE: dir };
}
