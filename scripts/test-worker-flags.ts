import { TEST_GC_FLAGS } from "../packages/service-kit/src/test-support/node-from-source.ts";

/**
 * Node/V8 flags for every vitest worker, set as each project's `execArgv` (a root-level
 * `execArgv` does not reach vitest's projects): service-kit's garbage-collector flags, which the
 * processes the tests start get through `NODE_FROM_SOURCE` (why: node-from-source.ts there).
 * A mutable copy, as vitest's option type asks for.
 */
export const TEST_WORKER_EXEC_ARGV: string[] = [...TEST_GC_FLAGS];
