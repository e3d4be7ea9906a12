/**
 * Node/V8 flags for every vitest worker (each project's `execArgv`; a root-level `execArgv`
 * does not reach the projects). service-kit's `NODE_FROM_SOURCE` gives the processes the tests
 * start the same flag.
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
export const TEST_WORKER_EXEC_ARGV: string[] = ["--external-memory-accounted-in-global-limit"];
