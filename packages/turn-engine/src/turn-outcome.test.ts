import { fc, test } from "@fast-check/vitest";
import type {
  ClaudeTurnFailure,
  ClaudeTurnFailureReason,
  ClaudeTurnResult,
} from "@talkide/claude-cli";
import { describe, expect, it } from "vitest";
import { classifyTurnOutcome } from "./turn-outcome.ts";

function failure(
  reason: ClaudeTurnFailureReason,
  runtimeError: ClaudeTurnFailure["runtimeError"] = null,
): ClaudeTurnFailure {
  return {
    ok: false,
    reason,
    message: "The CLI's own words.",
    sessionId: null,
    totalCostUsd: 0.3,
    usage: null,
    exitCode: 1,
    stderrTail: "",
    runtimeError,
  };
}

const unknownSession = failure("is_error", { kind: "session_unavailable", apiErrorStatus: null });

describe("the outcome of a turn", () => {
  it("a success costs the difference to the session's previous total", () => {
    const result: ClaudeTurnResult = {
      ok: true,
      sessionId: "s",
      resultText: "Hotovo.",
      totalCostUsd: 0.150872,
      usage: null,
      events: [],
      lastMessageId: "m",
    };
    expect(
      classifyTurnOutcome(result, { previousCumulativeCostUsd: 0.100552, resumedCold: true }),
    ).toEqual({ kind: "succeeded", result, costUsd: 0.05032 });
    expect(
      classifyTurnOutcome(result, { previousCumulativeCostUsd: null, resumedCold: false }),
    ).toMatchObject({ kind: "succeeded", costUsd: 0.150872 });
  });

  it("an unknown session on a cold resume restarts; anywhere else it is a failure", () => {
    expect(
      classifyTurnOutcome(unknownSession, { previousCumulativeCostUsd: 0.1, resumedCold: true })
        .kind,
    ).toBe("unknown_session");
    expect(
      classifyTurnOutcome(unknownSession, { previousCumulativeCostUsd: 0.1, resumedCold: false }),
    ).toMatchObject({ kind: "failed", error: { code: "session_unavailable" } });
  });

  it("an abort is an interruption only while the host stops", () => {
    const aborted = failure("aborted");
    const context = { previousCumulativeCostUsd: null, resumedCold: false };
    expect(classifyTurnOutcome(aborted, { ...context, stopping: true }).kind).toBe("interrupted");
    expect(classifyTurnOutcome(aborted, context)).toMatchObject({
      kind: "failed",
      error: { code: "turn_aborted" },
    });
  });

  const reasons = fc.constantFrom<ClaudeTurnFailureReason>(
    "binary_missing",
    "spawn_failed",
    "timeout",
    "crashed",
    "is_error",
    "protocol",
    "aborted",
  );
  const kinds = fc.constantFrom(
    null,
    ...([
      "auth",
      "rate_limited",
      "unavailable",
      "request_rejected",
      "session_unavailable",
      "other",
    ] as const),
  );

  test.prop([
    reasons,
    kinds,
    fc.boolean(),
    fc.boolean(),
    fc.option(fc.double({ min: 0, max: 10, noNaN: true })),
  ])(
    "every failure gets exactly one next step, and only its own conditions lead to it",
    (reason, kind, resumedCold, stopping, previous) => {
      const result = failure(reason, kind === null ? null : { kind, apiErrorStatus: null });
      const outcome = classifyTurnOutcome(result, {
        previousCumulativeCostUsd: previous,
        resumedCold,
        stopping,
      });
      expect(outcome.result).toBe(result);
      if (outcome.kind === "interrupted") expect(stopping && reason === "aborted").toBe(true);
      if (outcome.kind === "unknown_session")
        expect(resumedCold && reason === "is_error" && kind === "session_unavailable").toBe(true);
      if (stopping && reason === "aborted") expect(outcome.kind).toBe("interrupted");
      expect(outcome.kind === "succeeded").toBe(false);
    },
  );
});
