import type { RawBuilder } from "kysely";

/** The host's own part of one of the engine's statements (a run's start, a success). */
export interface HostSteps {
  /**
   * Common table expressions (`name AS (...)`, comma separated), each narrowed by `when` (an
   * `AND ...` condition, empty for none), so that nothing of the host's is written unless the
   * engine's part is.
   */
  readonly steps: (when: RawBuilder<unknown>) => RawBuilder<unknown>;
  /** What the statement returns of them: an expression over the steps (`host` of the result). */
  readonly result?: RawBuilder<unknown> | undefined;
}
