import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { allInputTokens, cacheReuse, perTurnCostUsd, roundUsd } from "./cost.ts";
import { totalCostOf } from "./stream-json.ts";

describe("perTurnCostUsd", () => {
  it.each([
    [null, 0.05, 0.05],
    [0.100552, 0.150872, 0.05032],
    [0.2, 0.2, 0],
    [0.1, null, null],
    [null, null, null],
    [0.3, 0.2, null],
    [Number.NaN, 0.2, null],
    [0.1, Number.POSITIVE_INFINITY, null],
    [-0.1, 0.2, null],
    [null, -1, null],
  ])("(%s, %s) → %s", (previous, cumulative, expected) => {
    expect(perTurnCostUsd(previous, cumulative)).toBe(expected);
  });

  const amount = fc.integer({ min: 0, max: 10_000_000 }).map((micro) => micro / 1e6);

  test.prop({ turns: fc.array(amount, { minLength: 1, maxLength: 20 }) }, { numRuns: 1000 })(
    "the per-turn costs of a session add up to its cumulative total",
    ({ turns }) => {
      let cumulative = 0;
      let previous: number | null = null;
      let sum = 0;
      for (const cost of turns) {
        cumulative += cost;
        const perTurn = perTurnCostUsd(previous, cumulative);
        expect(perTurn).not.toBeNull();
        expect(perTurn).toBeGreaterThanOrEqual(0);
        expect(Math.abs((perTurn ?? 0) - cost)).toBeLessThan(1e-9);
        sum += perTurn ?? 0;
        previous = cumulative;
      }
      expect(Math.abs(sum - cumulative)).toBeLessThan(1e-8);
    },
  );
});

describe("roundUsd", () => {
  it("turns the CLI's float sums into the decimals they stand for", () => {
    expect(0.0001 + 0.0002).toBe(0.00030000000000000003);
    expect(roundUsd(0.0001 + 0.0002)).toBe(0.0003);
    expect(JSON.stringify(roundUsd(0.1 + 0.2))).toBe("0.3");
    expect(
      totalCostOf({ type: "result", subtype: "success", total_cost_usd: 0.0001 + 0.0002 }),
    ).toBe(0.0003);
  });

  test.prop([fc.array(fc.integer({ min: 0, max: 10_000_000 }), { maxLength: 50 })])(
    "a sum of micro-dollar amounts prints as its exact decimal",
    (micros) => {
      const floatSum = micros.reduce((sum, m) => sum + m / 1e6, 0);
      const exact = micros.reduce((sum, m) => sum + m, 0);
      const text = String(roundUsd(floatSum));
      expect(text).toBe(String(exact / 1e6));
      expect(text).not.toMatch(/\d{11,}/);
    },
  );
});

describe("cacheReuse", () => {
  it("is the cache read share of all input, to four decimals", () => {
    const usage = {
      inputTokens: 1234,
      cacheCreationInputTokens: 3456,
      cacheReadInputTokens: 12345,
    };
    expect(allInputTokens(usage)).toBe(17035);
    expect(cacheReuse(12345, allInputTokens(usage))).toBe(0.7247);
  });

  it("is null when there was no input, or the counts cannot be a span's", () => {
    expect(cacheReuse(0, 0)).toBeNull();
    expect(cacheReuse(5, 4)).toBeNull();
    expect(cacheReuse(-1, 4)).toBeNull();
    expect(cacheReuse(Number.NaN, 4)).toBeNull();
  });

  const count = fc.nat({ max: 2_000_000 });
  const usage = fc.record({
    inputTokens: count,
    cacheCreationInputTokens: count,
    cacheReadInputTokens: count,
  });

  test.prop({ turns: fc.array(usage, { maxLength: 50 }) }, { numRuns: 500 })(
    "a session's reuse so far is within 0..1, and null exactly when it had no input",
    ({ turns }) => {
      const read = turns.reduce((sum, turn) => sum + turn.cacheReadInputTokens, 0);
      const all = turns.reduce((sum, turn) => sum + allInputTokens(turn), 0);
      const reuse = cacheReuse(read, all);
      if (all === 0) {
        expect(reuse).toBeNull();
      } else {
        expect(reuse).not.toBeNull();
        expect(reuse).toBeGreaterThanOrEqual(0);
        expect(reuse).toBeLessThanOrEqual(1);
      }
    },
  );
});
