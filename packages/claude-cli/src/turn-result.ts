import type { ClaudeStreamEvent, TokenUsage } from "./stream-json.ts";

// What a turn of the Claude Code CLI ends with: a success or a failure with its reason.

/**
 * What went wrong inside an `is_error` turn, read from the fields Claude Code 2.1.330 puts in
 * its result event (`api_error_status`, `api_error`, `terminal_reason`) rather than from its
 * prose, which names gateways and tells people to run `/login` (see `runtimeErrorOf`).
 */
export type RuntimeErrorKind =
  "auth" | "rate_limited" | "unavailable" | "request_rejected" | "session_unavailable" | "other";

export interface RuntimeErrorInfo {
  readonly kind: RuntimeErrorKind;
  /** The HTTP status the model API answered with, when the CLI reported one. */
  readonly apiErrorStatus: number | null;
}

export type ClaudeTurnFailureReason =
  "binary_missing" | "spawn_failed" | "timeout" | "crashed" | "is_error" | "protocol" | "aborted";

export interface ClaudeTurnSuccess {
  readonly ok: true;
  readonly sessionId: string;
  readonly resultText: string;
  /** The session's cumulative cost after this turn, as the CLI reported it. */
  readonly totalCostUsd: number | null;
  /** The turn's own tokens (uncached, cache write, cache read, output), as the CLI reported them. */
  readonly usage: TokenUsage | null;
  readonly events: readonly ClaudeStreamEvent[];
  /**
   * The uuid of the turn's last message from the agent (the last main-thread `assistant`
   * event), or null when there was none. Pass it as `resumeAtMessageId` with the next resume:
   * the conversation then continues from this turn, whatever failed after it.
   */
  readonly lastMessageId: string | null;
}

export interface ClaudeTurnFailure {
  readonly ok: false;
  readonly reason: ClaudeTurnFailureReason;
  /** One or two sentences for a person: what happened and what to do. */
  readonly message: string;
  /** The session the CLI announced in its init event (null when it announced none). */
  readonly sessionId: string | null;
  readonly totalCostUsd: number | null;
  /** The tokens the turn used before it failed, when the CLI reported a result with them. */
  readonly usage: TokenUsage | null;
  readonly exitCode: number | null;
  /** The last 8 KiB of the child's standard error. */
  readonly stderrTail: string;
  /** For `is_error`: what kind of runtime error it was (see `turnErrorFor`); null otherwise. */
  readonly runtimeError: RuntimeErrorInfo | null;
}

export type ClaudeTurnResult = ClaudeTurnSuccess | ClaudeTurnFailure;

/** A failure that happened before the CLI said anything: no session, no cost, no exit. */
export function failure(reason: ClaudeTurnFailureReason, message: string): ClaudeTurnFailure {
  return {
    ok: false,
    reason,
    message,
    sessionId: null,
    totalCostUsd: null,
    usage: null,
    exitCode: null,
    stderrTail: "",
    runtimeError: null,
  };
}
