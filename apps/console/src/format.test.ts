import { describe, expect, it } from "vitest";
import { formatCliFallback, formatTurnTokens } from "./format.ts";
import { stubTurn } from "./turn-stub.ts";

// A turn record as GET /v1/projects/:id/turns returns it: only the fields under test matter.
const turn = stubTurn;

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
