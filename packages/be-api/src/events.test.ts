import { fc, test as property } from "@fast-check/vitest";
import { describe, expect, test } from "vitest";
import {
  isTerminalEvent,
  recognizeStoredEvent,
  TURN_EVENTS,
  type EventPayload,
  type TurnEventName,
} from "./events.ts";

/** One payload per event name; the compiler fails here when a name is added without one. */
const SAMPLES: { readonly [N in TurnEventName]: EventPayload<N> } = {
  "turn.queued": { turnId: "t", number: 1, position: 0 },
  "turn.started": { turnId: "t", resume: false, process: "cold", coldReason: "new_session" },
  "context.written": {
    layout: "split",
    files: [{ path: "CLAUDE.md", changed: true, bytes: 10, instruction: true }],
    resumeReminderBytes: 0,
  },
  "workspace.instructions": { files: ["CLAUDE.local.md"], message: "Review them." },
  "port.busy": { service: "be", port: 8101, holder: null, message: "Port 8101 is in use." },
  "session.reset": { reason: "unknown_session", previousSessionId: "s", message: "New session." },
  "agent.init": { sessionId: "s", model: null },
  "agent.api_retry": {
    attempt: 1,
    maxRetries: 10,
    delayMs: 500,
    status: 529,
    error: "overloaded",
    message:
      "The model API answered 529 (overloaded); Claude Code retries (attempt 1 of 10) in 0.5 s.",
  },
  "agent.text": { text: "Ahoj." },
  "agent.tool_use": { name: "Read" },
  "turn.succeeded": {
    turnId: "t",
    sessionId: "s",
    resumed: false,
    resultText: "Ahoj.",
    costUsd: null,
    cumulativeCostUsd: null,
    demoModel: true,
  },
  "turn.failed": {
    turnId: "t",
    code: "cli_failed",
    message: "It failed.",
    sessionId: null,
    costUsd: null,
    demoModel: false,
  },
  "turn.stopped": { turnId: "t", stoppedBy: "Bob", resultText: "Half an ans", demoModel: false },
};

const names = Object.keys(TURN_EVENTS) as TurnEventName[];

describe("recognizeStoredEvent", () => {
  test.each(names)("recognizes a stored %s of the current shape", (type) => {
    const event = recognizeStoredEvent({ seq: 2, type, data: SAMPLES[type] });
    expect(event).toEqual({ seq: 2, type, data: SAMPLES[type] });
    expect("unrecognized" in event).toBe(false);
  });

  test("keeps an older release's shape as stored, and its terminal event still ends the turn", () => {
    // turn.failed before `demoModel` and `sessionId` were recorded.
    const old = { turnId: "t", code: "cli_failed", message: "It failed.", costUsd: null };
    const event = recognizeStoredEvent({ seq: 5, type: "turn.failed", data: old });
    expect(event).toEqual({ seq: 5, type: "turn.failed", data: old, unrecognized: true });
    expect(event.data).toBe(old);
    expect(isTerminalEvent(event)).toBe(true);
  });

  test("recognizes a terminal event with the turn's tokens, and one stored before they existed", () => {
    const usage = {
      inputTokens: 6,
      cacheCreationInputTokens: 412,
      cacheReadInputTokens: 14873,
      outputTokens: 233,
    };
    const withTokens = { ...SAMPLES["turn.succeeded"], usage, sessionCacheReuse: 0.8932 };
    expect(
      "unrecognized" in recognizeStoredEvent({ seq: 6, type: "turn.succeeded", data: withTokens }),
    ).toBe(false);
    expect(
      "unrecognized" in
        recognizeStoredEvent({ seq: 6, type: "turn.succeeded", data: SAMPLES["turn.succeeded"] }),
    ).toBe(false);
    // Counts are whole and not negative; a reuse is a share.
    for (const data of [
      { ...withTokens, usage: { ...usage, inputTokens: -1 } },
      { ...withTokens, sessionCacheReuse: 1.5 },
    ]) {
      expect("unrecognized" in recognizeStoredEvent({ seq: 6, type: "turn.succeeded", data })).toBe(
        true,
      );
    }
  });

  test("keeps an event under a name this release does not know", () => {
    const event = recognizeStoredEvent({ seq: 3, type: "agent.thinking", data: { text: "…" } });
    expect(event).toEqual({
      seq: 3,
      type: "agent.thinking",
      data: { text: "…" },
      unrecognized: true,
    });
    expect(isTerminalEvent(event)).toBe(false);
  });

  property.prop([
    fc.oneof(fc.constantFrom(...names, "__proto__", "toString", "turn"), fc.string()),
    fc.jsonValue(),
    fc.nat(),
  ])("never changes what was stored, whatever the row holds", (type, data, seq) => {
    const event = recognizeStoredEvent({ seq, type, data });
    expect(event.seq).toBe(seq);
    expect(event.type).toBe(type);
    expect(event.data).toBe(data);
    const known = Object.hasOwn(TURN_EVENTS, type);
    const fits = known && TURN_EVENTS[type as TurnEventName].safeParse(data).success;
    expect("unrecognized" in event).toBe(!fits);
  });
});

test("the terminal events are turn.succeeded, turn.failed and turn.stopped", () => {
  expect(names.filter((type) => isTerminalEvent({ type }))).toEqual([
    "turn.succeeded",
    "turn.failed",
    "turn.stopped",
  ]);
});
