/**
 * The Node arguments for a program of this workspace that a test starts as its own process
 * (a service, a CLI, a lease holder), before the entry point: the workspace's sources through
 * the "@talkide/source" export condition, as vitest resolves them, `--liftoff-only`, and the
 * garbage-collector flag the test workers run with (see scripts/test-worker-flags.ts: a PGlite
 * start no longer sets off a full collection per 64 MB of memory outside the heap).
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
  "--external-memory-accounted-in-global-limit",
];
