import { describe, expect, it } from "vitest";
import type { ProjectUsage } from "./api.ts";
import {
  formatCliFallback,
  formatExactUsd,
  formatSpend,
  formatSpendExactly,
  formatTurnTokens,
  formatUsd,
} from "./format.ts";
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

  it("splits the cache writes by lifetime where the gateway recorded them", () => {
    const split = (fiveMin: number, oneHour: number) => ({
      ...usage,
      cacheCreationInputTokens: fiveMin + oneHour,
      cacheCreation5mInputTokens: fiveMin,
      cacheCreation1hInputTokens: oneHour,
    });
    expect(formatTurnTokens(turn({ usage: split(0, 3456) }))).toBe(
      "in 1,234 · cache write 3,456 (1 h) · cache read 12,345",
    );
    expect(formatTurnTokens(turn({ usage: split(3456, 0) }))).toBe(
      "in 1,234 · cache write 3,456 (5 min) · cache read 12,345",
    );
    expect(formatTurnTokens(turn({ usage: split(16, 13_177) }))).toBe(
      "in 1,234 · cache write 13,193 (1 h 13,177 · 5 min 16) · cache read 12,345",
    );
    expect(formatTurnTokens(turn({ usage: split(0, 0) }))).toBe(
      "in 1,234 · cache write 0 · cache read 12,345",
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

describe("formatUsd", () => {
  it("gives cents from a dollar up, and up to four decimals below, at least two", () => {
    expect(formatUsd(1.2345)).toBe("$1.23");
    expect(formatUsd(1250)).toBe("$1,250.00");
    expect(formatUsd(50)).toBe("$50.00");
    expect(formatUsd(0.012345678)).toBe("$0.0123");
    expect(formatUsd(0.1225)).toBe("$0.1225");
    expect(formatUsd(0.12)).toBe("$0.12");
    expect(formatUsd(0.01)).toBe("$0.01");
    expect(formatUsd(0.012)).toBe("$0.012");
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(0.00001)).toBe("less than $0.0001");
  });

  it("gives the exact figure for tooltips, to the gateway's 1e-10", () => {
    expect(formatExactUsd(0.0123456789)).toBe("$0.0123456789");
    expect(formatExactUsd(0.10546)).toBe("$0.10546");
    expect(formatExactUsd(50)).toBe("$50.00");
    expect(formatExactUsd(0)).toBe("$0.00");
  });
});

describe("formatSpend", () => {
  const period = (
    usd: number,
    tokens: number,
    limits: { usd: number | null; tokens: number | null },
  ) => ({ since: "2026-12-07T00:00:00.000Z", usd, tokens, limits });
  const spend = (
    today: ReturnType<typeof period>,
    month: ReturnType<typeof period>,
  ): ProjectUsage["project"] => ({ today, month });

  it("says what was spent today and this month, beside the caps", () => {
    const project = spend(
      period(1.2345, 40_000, { usd: 50, tokens: null }),
      period(4.56, 160_000, { usd: 500, tokens: null }),
    );
    expect(formatSpend("This project", project)).toBe(
      "This project: $1.23 today of $50.00 daily limit · $4.56 this month of $500.00 monthly limit",
    );
  });

  it("leaves out a cap that is off, and says a reached one is reached", () => {
    const you = spend(
      period(20.13, 1, { usd: 20, tokens: null }),
      period(25.4, 1, { usd: null, tokens: null }),
    );
    expect(formatSpend("You", you)).toBe(
      "You: $20.13 today, $20.00 daily limit reached · $25.40 this month",
    );
  });

  it("counts tokens only where a token cap applies", () => {
    const project = spend(
      period(0.5, 123_456, { usd: null, tokens: 1_000_000 }),
      period(0.5, 123_456, { usd: null, tokens: null }),
    );
    expect(formatSpend("This project", project)).toBe(
      "This project: $0.50 today · $0.50 this month · 123,456 tokens today of 1,000,000 tokens daily limit",
    );
    const capped = spend(
      period(0, 0, { usd: null, tokens: null }),
      period(0, 2_000_000, { usd: null, tokens: 2_000_000 }),
    );
    expect(formatSpend("You", capped)).toBe(
      "You: $0.00 today · $0.00 this month · 2,000,000 tokens this month, 2,000,000 tokens monthly limit reached",
    );
  });

  it("gives the exact figures and where each period starts, for its tooltip", () => {
    const project = spend(period(0.0123456789, 13_200, { usd: 50, tokens: null }), {
      ...period(0.0123456789, 13_200, { usd: 500, tokens: null }),
      since: "2026-12-01T00:00:00.000Z",
    });
    expect(formatSpendExactly(project)).toBe(
      "today since 2026-12-07 00:00 UTC: exactly $0.0123456789, 13,200 tokens; this month since 2026-12-01 00:00 UTC: exactly $0.0123456789, 13,200 tokens",
    );
  });
});
