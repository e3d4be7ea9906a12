import { isSyntheticAssistantEvent, runtimeErrorOf } from "./turn-error.ts";
import {
  sessionIdOf,
  tokenUsageOf,
  totalCostOf,
  type ClaudeResultEvent,
  type ClaudeStreamEvent,
} from "./stream-json.ts";
import type { ClaudeTurnFailure, ClaudeTurnResult } from "./turn-result.ts";

// The outcome of a turn, decided from what was observed once the child is gone.

/** Why the process group was ended during a turn, if it was. */
export type TerminationCause = "timeout" | "aborted";

export interface TurnObservation {
  readonly timeoutMs: number;
  readonly killGraceMs: number;
  readonly resultEvent: ClaudeResultEvent | null;
  readonly initSessionId: string | null;
  readonly firstInvalidLine: string | null;
  readonly stderrTail: string;
  readonly exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  readonly terminatedBy: TerminationCause | null;
  readonly escalatedToSigkill: boolean;
  readonly events: readonly ClaudeStreamEvent[];
}

/** Decides the outcome once the child is gone and its output is read. */
export function classify(observed: TurnObservation): ClaudeTurnResult {
  const exitCode = observed.exit?.code ?? null;
  const base = {
    sessionId: observed.initSessionId,
    totalCostUsd: observed.resultEvent === null ? null : totalCostOf(observed.resultEvent),
    usage: observed.resultEvent === null ? null : tokenUsageOf(observed.resultEvent),
    exitCode,
    stderrTail: observed.stderrTail,
    runtimeError: null,
  };
  const result = observed.resultEvent;

  if (result === null) {
    const how = observed.escalatedToSigkill
      ? `it ignored SIGTERM and was killed (SIGKILL) after ${observed.killGraceMs} ms`
      : "its process group was terminated (SIGTERM)";
    if (observed.terminatedBy === "aborted") {
      return {
        ok: false,
        reason: "aborted",
        message: `The turn was aborted; ${how}.`,
        ...base,
      };
    }
    if (observed.terminatedBy === "timeout") {
      return {
        ok: false,
        reason: "timeout",
        message: `Claude Code gave no result within ${observed.timeoutMs} ms; ${how}. Raise the turn timeout if turns legitimately take longer.`,
        ...base,
      };
    }
    const signal = observed.exit?.signal ?? null;
    if (signal !== null || (exitCode !== null && exitCode !== 0)) {
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${exitCode}`;
      return {
        ok: false,
        reason: "crashed",
        message: `Claude Code ${how} before reporting a result.${stderrHint(observed.stderrTail)}`,
        ...base,
      };
    }
    if (observed.firstInvalidLine !== null) {
      return protocolFailure(base, observed.firstInvalidLine);
    }
    return {
      ok: false,
      reason: "protocol",
      message:
        "Claude Code exited without a result event. Check that the configured binary is Claude Code and supports --output-format stream-json.",
      ...base,
    };
  }

  if (result.is_error === true) {
    return {
      ok: false,
      reason: "is_error",
      message: describeErrorResult(result),
      ...base,
      runtimeError: runtimeErrorOf(result),
    };
  }
  if (observed.firstInvalidLine !== null) {
    return protocolFailure(base, observed.firstInvalidLine);
  }
  if (result.is_error !== false) {
    return {
      ok: false,
      reason: "protocol",
      message: "Claude Code's result event has no boolean is_error, so success cannot be told.",
      ...base,
    };
  }
  const sessionId = observed.initSessionId ?? sessionIdOf(result);
  if (sessionId === null) {
    return {
      ok: false,
      reason: "protocol",
      message: "Claude Code reported a result but never named its session (no session_id).",
      ...base,
    };
  }
  return {
    ok: true,
    sessionId,
    resultText: typeof result.result === "string" ? result.result : "",
    totalCostUsd: base.totalCostUsd,
    usage: base.usage,
    events: observed.events,
    lastMessageId: lastAgentMessageId(observed.events),
  };
}

/**
 * The uuid of the last message the agent itself wrote in the main conversation: subagents'
 * events carry a `parent_tool_use_id` and live in their own transcripts, and a synthetic
 * message is the runtime's, not part of what the model said.
 */
function lastAgentMessageId(events: readonly ClaudeStreamEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event === undefined || event.type !== "assistant") continue;
    if (event["parent_tool_use_id"] !== null && event["parent_tool_use_id"] !== undefined) continue;
    if (isSyntheticAssistantEvent(event)) continue;
    const uuid = event["uuid"];
    if (typeof uuid === "string" && uuid !== "") return uuid;
  }
  return null;
}

function protocolFailure(
  base: Omit<ClaudeTurnFailure, "ok" | "reason" | "message">,
  line: string,
): ClaudeTurnFailure {
  const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
  return {
    ok: false,
    reason: "protocol",
    message: `Claude Code wrote a line that is not a stream-json event: ${JSON.stringify(shown)}.`,
    ...base,
  };
}

/** The CLI's own words: `result` text for API errors, `errors[]` for execution errors. */
function describeErrorResult(result: ClaudeResultEvent): string {
  const subtype = typeof result.subtype === "string" ? result.subtype : "unknown";
  const detail =
    typeof result.result === "string" && result.result !== ""
      ? result.result
      : Array.isArray(result.errors)
        ? result.errors.filter((e): e is string => typeof e === "string").join("; ")
        : "";
  // API errors arrive with subtype "success" and is_error true; naming that subtype would
  // only confuse a reader, every other subtype says what kind of error it was.
  const kind = subtype === "success" ? "" : ` (${subtype})`;
  return detail === ""
    ? `Claude Code reported an error${kind} without details.`
    : `Claude Code reported an error${kind}: ${detail}`;
}

function stderrHint(stderrTail: string): string {
  const lastLine = stderrTail.trimEnd().split("\n").pop()?.trim() ?? "";
  return lastLine === ""
    ? ""
    : ` Its last words on stderr: ${JSON.stringify(lastLine.slice(0, 300))}.`;
}
