import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { ClaudeTurnFailure } from "./turn-result.ts";
import type { ClaudeResultEvent } from "./stream-json.ts";
import { isSyntheticAssistantEvent, runtimeErrorOf, turnErrorFor } from "./turn-error.ts";

/** Result events as Claude Code 2.1.330 wrote them against the fake API (WIRE-NOTES.md). */
const MEASURED: ReadonlyArray<[string, Partial<ClaudeResultEvent>, string]> = [
  [
    "401",
    {
      terminal_reason: "api_error",
      api_error_status: 401,
      api_error_type: "authentication_error",
      result: "Invalid API key · Fix external API key",
    },
    "model_auth_failed",
  ],
  [
    "no key",
    {
      terminal_reason: "api_error",
      api_error_status: null,
      result: "Not logged in · Please run /login",
    },
    "model_auth_failed",
  ],
  [
    "429",
    {
      terminal_reason: "api_error",
      api_error_status: 429,
      result: "API Error: Request rejected (429) · slow down",
    },
    "model_rate_limited",
  ],
  [
    "529",
    {
      terminal_reason: "api_error",
      api_error_status: 529,
      result:
        "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:35533).",
    },
    "model_unavailable",
  ],
  [
    "connection refused",
    {
      terminal_reason: "api_error",
      api_error_status: null,
      api_error: "connection_failed",
      result:
        "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)",
    },
    "model_unavailable",
  ],
  [
    "400",
    { terminal_reason: "api_error", api_error_status: 400, result: "API Error: 400 bad request" },
    "model_request_rejected",
  ],
  [
    "prompt too long",
    { terminal_reason: "prompt_too_long", api_error_status: 400, result: "Prompt is too long · …" },
    "model_request_rejected",
  ],
  [
    "unknown session",
    {
      subtype: "error_during_execution",
      errors: ["No conversation found with session ID: 0f9c7a52-3b8e-4c61-9d2a-5e7f1b2c3d4e"],
    },
    "session_unavailable",
  ],
  [
    "unknown resume point",
    {
      subtype: "error_during_execution",
      errors: ["No message found with message.uuid of: 11111111-2222-4333-8444-555555555555"],
    },
    "session_unavailable",
  ],
  ["max turns", { subtype: "error_max_turns" }, "claude_error"],
];

function failureOf(result: Partial<ClaudeResultEvent>): ClaudeTurnFailure {
  const event = {
    type: "result",
    is_error: true,
    subtype: "success",
    ...result,
  } as ClaudeResultEvent;
  return {
    ok: false,
    reason: "is_error",
    message: `Claude Code reported an error: ${event.result ?? ""}`,
    sessionId: "0f9c7a52-3b8e-4c61-9d2a-5e7f1b2c3d4e",
    totalCostUsd: 0,
    usage: null,
    exitCode: 1,
    stderrTail: "",
    runtimeError: runtimeErrorOf(event),
  };
}

describe("turnErrorFor", () => {
  it.each(MEASURED)("%s becomes %s", (_name, result, code) => {
    expect(turnErrorFor(failureOf(result)).code).toBe(code);
  });

  it("names the HTTP status, never the runtime's words or the gateway", () => {
    const error = turnErrorFor(failureOf(MEASURED[3]?.[1] ?? {}));
    expect(error.message).toContain("HTTP 529");
    expect(error.message).not.toContain("127.0.0.1");
    expect(error.message).not.toContain("API Error");
    expect(turnErrorFor(failureOf(MEASURED[1]?.[1] ?? {})).message).not.toContain("/login");
  });

  test.prop({
    text: fc.string({ minLength: 8 }).map((s) => `canary-${s}`),
    status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
    terminal: fc.constantFrom("api_error", "prompt_too_long", "completed", undefined),
  })("no text of the runtime ever reaches the message for people", ({ text, status, terminal }) => {
    const failure = failureOf({
      result: `API Error: ${text} (http://gateway.internal:8443)`,
      api_error_status: status,
      terminal_reason: terminal,
      errors: [text],
    });
    const error = turnErrorFor(failure);
    expect(error.code).toMatch(/^[a-z_]+$/);
    expect(error.message).not.toContain("canary-");
    expect(error.message).not.toContain("gateway.internal");
  });

  it("keeps its own messages for failures outside the model call", () => {
    const crashed: ClaudeTurnFailure = {
      ...failureOf({}),
      reason: "crashed",
      message: "Claude Code exited with code 3 before reporting a result. Its last words: x",
      runtimeError: null,
    };
    expect(turnErrorFor(crashed)).toEqual({
      code: "claude_crashed",
      message: expect.not.stringContaining("last words") as string,
    });
    expect(turnErrorFor({ ...crashed, reason: "timeout", message: "No result." })).toEqual({
      code: "turn_timeout",
      message: "No result.",
    });
  });
});

describe("isSyntheticAssistantEvent", () => {
  it("tells the runtime's stand-in message from the model's", () => {
    const message = (model: string) => ({
      type: "assistant",
      message: { model, content: [{ type: "text", text: "x" }] },
    });
    expect(isSyntheticAssistantEvent(message("<synthetic>"))).toBe(true);
    expect(isSyntheticAssistantEvent(message("claude-opus-5-5"))).toBe(false);
    expect(isSyntheticAssistantEvent({ type: "result", message: { model: "<synthetic>" } })).toBe(
      false,
    );
  });
});
