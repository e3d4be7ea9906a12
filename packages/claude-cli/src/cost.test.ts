import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { perTurnCostUsd } from "./cost.ts";

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
