import { describe, expect, it } from "vitest";
import { limitSettings } from "./limits.ts";
import { usagePeriods } from "./usage-periods.ts";

const totals = {
  day: { since: "2026-12-07T00:00:00.000Z", usd: 1.25, tokens: 40_000 },
  month: { since: "2026-12-01T00:00:00.000Z", usd: 7.5, tokens: 260_000 },
};

describe("usagePeriods", () => {
  it("answers today and this month with the caps of the scope asked for", () => {
    const limits = limitSettings({ TALKIDE_LIMIT_PROJECT_MONTH_TOKENS: 1_000_000 });
    expect(usagePeriods(totals, limits, "project")).toEqual({
      today: { ...totals.day, limits: { usd: 50, tokens: null } },
      month: { ...totals.month, limits: { usd: 500, tokens: 1_000_000 } },
    });
    expect(usagePeriods(totals, limits, "user")).toEqual({
      today: { ...totals.day, limits: { usd: 20, tokens: null } },
      month: { ...totals.month, limits: { usd: 200, tokens: null } },
    });
  });

  it("says no cap where the operator turned one off", () => {
    const limits = limitSettings({ TALKIDE_LIMIT_USER_DAY_USD: null });
    expect(usagePeriods(totals, limits, "user").today.limits).toEqual({ usd: null, tokens: null });
  });
});
