import type { ClaudeResultEvent, ClaudeStreamEvent } from "./stream-json.ts";
import type { ClaudeTurnFailure, RuntimeErrorInfo, RuntimeErrorKind } from "./turn-result.ts";

/** A failed turn as people see it: a stable code and a message in our own words. */
export interface TurnError {
  readonly code: string;
  readonly message: string;
}

/** The pinned CLI's words for a resume it cannot do (result `errors[]`, also on stderr). */
const SESSION_UNAVAILABLE_TEXTS = [
  "No conversation found with session ID",
  "No message found with message.uuid of",
] as const;

/** The pinned CLI's words for missing or refused credentials (no HTTP status in the result). */
const AUTH_TEXTS = ["Not logged in", "Invalid API key", "OAuth token", "authentication"] as const;

/** Claude Code's own stand-in for a model message: its error text, never the agent's words. */
const SYNTHETIC_MODEL = "<synthetic>";

/**
 * True for an `assistant` event that Claude Code made up itself (model `<synthetic>`): the
 * text of an API error, "Not logged in", a gateway address. Such text is the runtime talking,
 * not the agent, and must never be shown or stored as the agent's words.
 */
export function isSyntheticAssistantEvent(event: ClaudeStreamEvent): boolean {
  if (event.type !== "assistant") return false;
  const message = event["message"] as { model?: unknown } | undefined;
  return message?.model === SYNTHETIC_MODEL;
}

/** Classifies an `is_error` result event. */
export function runtimeErrorOf(result: ClaudeResultEvent): RuntimeErrorInfo {
  const status = typeof result["api_error_status"] === "number" ? result["api_error_status"] : null;
  const errors: unknown[] = Array.isArray(result.errors) ? [...(result.errors as unknown[])] : [];
  const text = [typeof result.result === "string" ? result.result : "", ...errors]
    .filter((part): part is string => typeof part === "string")
    .join("\n");
  const kind = ((): RuntimeErrorKind => {
    if (SESSION_UNAVAILABLE_TEXTS.some((t) => text.includes(t))) return "session_unavailable";
    if (status === 401 || status === 403) return "auth";
    if (status === 429) return "rate_limited";
    if (status !== null && status >= 500) return "unavailable";
    if (status !== null && status >= 400) return "request_rejected";
    if (result["terminal_reason"] === "prompt_too_long") return "request_rejected";
    if (typeof result["api_error"] === "string") return "unavailable";
    if (result["terminal_reason"] === "api_error") {
      return AUTH_TEXTS.some((t) => text.includes(t)) ? "auth" : "unavailable";
    }
    return "other";
  })();
  return { kind, apiErrorStatus: status };
}

const statusNote = (status: number | null): string => (status === null ? "" : ` (HTTP ${status})`);

/**
 * The stable code and the message for people of a failed turn. The CLI's own text (which may
 * hold a gateway address, a key hint or advice for its interactive UI) stays out of it: the
 * caller logs `failure.message` for operators.
 */
export function turnErrorFor(failure: ClaudeTurnFailure): TurnError {
  switch (failure.reason) {
    case "binary_missing":
      return { code: "claude_binary_missing", message: failure.message };
    case "spawn_failed":
      return { code: "claude_spawn_failed", message: failure.message };
    case "timeout":
      return { code: "turn_timeout", message: failure.message };
    case "crashed":
      return {
        code: "claude_crashed",
        message:
          "The agent runtime stopped before it finished this turn. The conversation is unchanged; send the message again, and if it keeps happening an operator finds the details in the service log.",
      };
    case "protocol":
      return { code: "claude_protocol_error", message: failure.message };
    case "aborted":
      return { code: "turn_aborted", message: failure.message };
    case "is_error":
      return modelError(failure.runtimeError ?? { kind: "other", apiErrorStatus: null });
  }
}

function modelError(info: RuntimeErrorInfo): TurnError {
  const status = statusNote(info.apiErrorStatus);
  switch (info.kind) {
    case "auth":
      return {
        code: "model_auth_failed",
        message: `The model provider did not accept the service's credentials${status}. An operator must configure a valid API key for the service; then send the message again.`,
      };
    case "rate_limited":
      return {
        code: "model_rate_limited",
        message: `The model provider is limiting requests right now${status}. Wait a moment and send the message again.`,
      };
    case "unavailable":
      return {
        code: "model_unavailable",
        message: `The model provider could not be reached or is overloaded${status}. Send the message again in a moment; if it keeps failing, an operator should check the connection to the model provider.`,
      };
    case "request_rejected":
      return {
        code: "model_request_rejected",
        message: `The model provider refused this turn's request${status}. The conversation is unchanged: shorten or rephrase the message and send it again.`,
      };
    case "session_unavailable":
      return {
        code: "session_unavailable",
        message:
          "The agent runtime no longer has this conversation. Send the message again to start a new one.",
      };
    case "other":
      return {
        code: "claude_error",
        message:
          "The agent runtime ended this turn with an error. The conversation is unchanged; send the message again, and if it keeps happening an operator finds the details in the service log.",
      };
  }
}
