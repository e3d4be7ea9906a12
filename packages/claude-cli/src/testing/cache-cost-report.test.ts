import { describe, expect, it } from "vitest";
import {
  CACHE_ANCHORS,
  costTable,
  layoutNotes,
  stepCost,
  stepsTheProjectDecides,
  totalRatio,
} from "./cache-cost-report.ts";
import { estimateBlockTokens, type PromptCacheLedgerEntry } from "./prompt-cache.ts";

function entry(figures: Partial<PromptCacheLedgerEntry>): PromptCacheLedgerEntry {
  const base = { uncached: 0, write5m: 0, write1h: 0, read: 0, ...figures };
  return {
    requestIndex: 0,
    at: 0,
    model: "claude-sonnet-4-5",
    promptTokens: base.uncached + base.write5m + base.write1h + base.read,
    idealNew: 0,
    breakpoints: [],
    ...base,
  };
}

describe("the cost of a scenario step", () => {
  it("bills uncached ×1, writes ×1.25 (5 m) or ×2 (1 h), reads ×0.1", () => {
    const main = entry({ uncached: 10, write5m: 100, write1h: 50, read: 1000 });
    const cost = stepCost({ label: "turn", entries: [main], main, newTexts: "all" });
    expect(cost).toMatchObject({ requests: 1, uncached: 10, write: 150, read: 1000 });
    expect(cost.billed).toBeCloseTo(10 + 125 + 100 + 100);
  });

  it("holds the turn request to writing only its new text and reading the rest", () => {
    const prompt = "Můžeš prosím zkontrolovat košík?";
    const fresh = estimateBlockTokens(prompt);
    const main = entry({ write5m: 500, read: 9500 });
    const cost = stepCost({ label: "warm", entries: [main], main, newTexts: [prompt] });
    expect(cost.ideal).toBeCloseTo(fresh * 1.25 + (10_000 - fresh) * 0.1);
    expect(cost.billed).toBeCloseTo(500 * 1.25 + 9500 * 0.1);
  });

  it("writes the ideal at 2× when the request asked for the 1-hour TTL", () => {
    const main = {
      ...entry({ write1h: 100 }),
      breakpoints: [
        {
          block: 3,
          section: "messages" as const,
          prefixTokens: 100,
          ttl: "1h" as const,
          outcome: "written" as const,
        },
      ],
    };
    expect(stepCost({ label: "1h", entries: [main], main, newTexts: "all" }).ideal).toBe(200);
  });

  it("holds other requests of the step to the stand-in's prefix ideal, and a refused turn to 0", () => {
    const retry = { ...entry({ write5m: 1000 }), idealNew: 100 };
    expect(stepCost({ label: "retry", entries: [retry], main: null, newTexts: [] }).ideal).toBe(
      100 * 1.25 + 900 * 0.1,
    );
    const refused = stepCost({ label: "failed", entries: [], main: null, newTexts: [] });
    expect([refused.billed, refused.ideal]).toEqual([0, 0]);
  });

  it("prints one row per step, the total and the total ratio", () => {
    const a = entry({ write5m: 1000 });
    const b = entry({ write5m: 10, read: 1000 });
    const costs = [
      stepCost({ label: "first", entries: [a], main: a, newTexts: "all" }),
      stepCost({ label: "warm", entries: [b], main: b, newTexts: "all" }),
    ];
    const table = costTable(costs);
    expect(table).toHaveLength(5);
    expect(table[2]).toBe("| first | 1 | 0 | 1,000 | 0 | 1,250 | 1,250 | 1.00× |");
    expect(table[4]).toContain("**whole scenario** | 2 |");
    expect(totalRatio(costs)).toBeCloseTo((1250 + 112.5) / (1250 + 1262.5));
    expect(CACHE_ANCHORS.join("\n")).toContain("#124191");
  });

  it("reports a step the CLI's layout decides apart, and keeps it in the whole scenario", () => {
    const warm = entry({ write5m: 10, read: 1000 });
    const rewritten = entry({ write5m: 2000 });
    const costs = [
      stepCost({ label: "warm", entries: [warm], main: warm, newTexts: "all" }),
      stepCost({
        label: "fallback",
        entries: [rewritten],
        main: rewritten,
        newTexts: [],
        layoutBound: "the CLI changed its tools",
      }),
    ];
    const table = costTable(costs);
    expect(table).toHaveLength(6);
    expect(table[3]).toMatch(/^\| fallback ¹ \| 1 \|/);
    expect(table[4]).toContain("**whole scenario** | 2 |");
    expect(table[5]).toContain("**whole scenario without ¹** | 1 |");
    expect(stepsTheProjectDecides(costs).map((c) => c.label)).toEqual(["warm"]);
    expect(totalRatio(stepsTheProjectDecides(costs))).toBeCloseTo(112.5 / 1262.5);
    expect(totalRatio(costs)).toBeCloseTo((112.5 + 2500) / (1262.5 + 200));
    expect(layoutNotes(costs)).toEqual(["¹ fallback: the CLI changed its tools"]);
  });
});
