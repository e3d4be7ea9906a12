import {
  isUnknownSessionFailure,
  perTurnCostUsd,
  turnErrorFor,
  type ClaudeTurnFailure,
  type ClaudeTurnResult,
  type ClaudeTurnSuccess,
  type TurnError,
} from "@talkide/claude-cli";

/** What the outcome stage needs to know of the turn besides the CLI's result. */
export interface OutcomeContext {
  /**
   * The continued session's cumulative cost before this turn; null for a turn that started a
   * session (or continued one of unknown cost): then the turn's cost is the CLI's total.
   */
  readonly previousCumulativeCostUsd: number | null;
  /**
   * A process was started for this turn to resume a stored session (not a kept process, not a
   * new session): only such a turn can find its session unknown and be started afresh.
   */
  readonly resumedCold: boolean;
  /** The host is stopping and aborted the turn: the work goes back in line, not failed. */
  readonly stopping?: boolean;
}

/**
 * How a turn ended, once for both hosts, as what the host does next:
 *
 * - `succeeded`: store the outcome (and the transcript) and keep the process;
 * - `unknown_session`: the CLI could not resume where it was asked to (its transcript or the
 *   resume point is gone); nothing reached the model, so the host ends the session and runs
 *   the same message once more in a new one (the unknown-session restart);
 * - `interrupted`: aborted because the host is stopping: the host puts the work back in line;
 * - `failed`: record the failure; `error` is the code and our message for clients (the CLI's
 *   own words in `result.message` are for the operator's log).
 *
 * `costUsd` is what this turn cost (the CLI reports a session's running total).
 */
export type TurnOutcome =
  | {
      readonly kind: "succeeded";
      readonly result: ClaudeTurnSuccess;
      readonly costUsd: number | null;
    }
  | {
      readonly kind: "unknown_session" | "interrupted" | "failed";
      readonly result: ClaudeTurnFailure;
      readonly costUsd: number | null;
      readonly error: TurnError;
    };

export function classifyTurnOutcome(
  result: ClaudeTurnResult,
  context: OutcomeContext,
): TurnOutcome {
  const costUsd = perTurnCostUsd(context.previousCumulativeCostUsd, result.totalCostUsd);
  if (result.ok) return { kind: "succeeded", result, costUsd };
  const error = turnErrorFor(result);
  if (result.reason === "aborted" && context.stopping === true) {
    return { kind: "interrupted", result, costUsd, error };
  }
  if (context.resumedCold && isUnknownSessionFailure(result)) {
    return { kind: "unknown_session", result, costUsd, error };
  }
  return { kind: "failed", result, costUsd, error };
}
