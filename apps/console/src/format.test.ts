import { describe, expect, it } from "vitest";
import type { Turn } from "./api.ts";
import { formatCliFallback, formatTurnTokens } from "./format.ts";

// A turn record as GET /v1/projects/:id/turns returns it, stubbed: only the fields under test matter.
const turn = (fields: Partial<Turn>): Turn => ({
  id: "t1",
  projectId: 1,
  number: 1,
  memberId: "m1",
  status: "succeeded",
  resumed: false,
  sessionId: "s1",
  sessionReset: null,
  message: "Ahoj",
  resultText: "Ahoj Anno.",
  error: null,
  costUsd: 0.0498,
  cumulativeCostUsd: 0.0996,
  createdAt: "2026-11-27T20:00:00.000Z",
  startedAt: "2026-11-27T20:00:01.000Z",
  finishedAt: "2026-11-27T20:00:09.000Z",
  workspaceInstructionFiles: [],
  context: null,
  process: "cold",
  coldReason: "new_session",
  demoModel: false,
  usage: null,
  sessionCacheReuse: null,
  cliFallback: null,
  author: "Anna",
  stoppedBy: null,
  notes: [],
  ...fields,
});

describe("formatTurnTokens", () => {
  const usage = {
    inputTokens: 1234,
    cacheCreationInputTokens: 3456,
    cacheReadInputTokens: 12345,
    outputTokens: 89,
  };

  it("splits the turn's input by the prompt cache, with the session's reuse", () => {
    expect(formatTurnTokens(turn({ usage, sessionCacheReuse: 0.7834 }))).toBe(
      "in 1,234 · cache write 3,456 · cache read 12,345 · reuse 78%",
    );
  });

  it("leaves out an unknown reuse, and says nothing for a turn without tokens", () => {
    expect(formatTurnTokens(turn({ usage }))).toBe(
      "in 1,234 · cache write 3,456 · cache read 12,345",
    );
    expect(formatTurnTokens(turn({}))).toBeNull();
  });
});

describe("formatCliFallback", () => {
  it("says in words what the CLI's fallback costs the rest of the conversation", () => {
    expect(formatCliFallback(turn({ cliFallback: "tool_search_off" }))).toBe(
      "The model gateway refused deferred tools, so Claude Code turned tool search off: every later turn of this conversation sends about 8,100 more input tokens.",
    );
  });

  it("says nothing for a turn without one", () => {
    expect(formatCliFallback(turn({}))).toBeNull();
  });
});
