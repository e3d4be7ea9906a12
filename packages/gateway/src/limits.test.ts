import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, limitSettings, periodsOf, reachedLimit } from "./limits.ts";

const used = (dayUsd: number, monthUsd: number, tokens = 0) => ({
  day: { usd: dayUsd, tokens },
  month: { usd: monthUsd, tokens },
});

describe("limits", () => {
  it("cuts UTC days and months, the year's last ones too", () => {
    const { day, month } = periodsOf(Date.UTC(2026, 11, 31, 23, 59, 59));
    expect([day.from, day.to, month.from, month.to].map((d) => d.toISOString())).toEqual([
      "2026-12-31T00:00:00.000Z",
      "2027-01-01T00:00:00.000Z",
      "2026-12-01T00:00:00.000Z",
      "2027-01-01T00:00:00.000Z",
    ]);
  });

  it("reports the first limit reached (at the cap, not only above it), the user's before the project's", () => {
    expect(
      reachedLimit(DEFAULT_LIMITS, { user: used(19.99, 100), project: used(49, 400) }),
    ).toBeNull();
    expect(
      reachedLimit(DEFAULT_LIMITS, { user: used(20, 100), project: used(50, 400) }),
    ).toMatchObject({
      scope: "user",
      period: "day",
      measure: "usd",
      used: 20,
      cap: 20,
      setting: "TALKIDE_LIMIT_USER_DAY_USD",
      message:
        "Your daily spending limit of $20.00 is reached ($20.00 used today (UTC)). It resets at the start of the next day (UTC); the service's operator can raise it with TALKIDE_LIMIT_USER_DAY_USD.",
    });
    expect(reachedLimit(DEFAULT_LIMITS, { user: null, project: used(1, 500) })).toMatchObject({
      scope: "project",
      period: "month",
      message: expect.stringMatching(
        /^This project's monthly spending limit of \$500\.00 is reached/,
      ) as string,
    });
  });

  it("names the project as the host calls it", () => {
    expect(
      reachedLimit(DEFAULT_LIMITS, { user: null, project: used(1, 500) }, "agent")?.message,
    ).toMatch(/^This agent's monthly spending limit of \$500\.00 is reached/);
  });

  it("counts tokens when a token cap is set, and ignores what is off", () => {
    const limits = limitSettings({
      TALKIDE_LIMIT_PROJECT_MONTH_TOKENS: 1_000_000,
      TALKIDE_LIMIT_USER_DAY_USD: null,
    });
    expect(
      reachedLimit(limits, { user: used(999, 999), project: used(0, 0, 1_000_000) }),
    ).toMatchObject({
      scope: "user",
      period: "month",
      measure: "usd",
    });
    const tokensOnly = limitSettings(
      Object.fromEntries(limits.map((l) => [l.setting, l.measure === "tokens" ? l.cap : null])),
    );
    expect(
      reachedLimit(tokensOnly, { user: used(999, 999), project: used(0, 0, 1_000_000) })?.message,
    ).toBe(
      "This project's monthly token limit of 1,000,000 tokens is reached (1,000,000 tokens used this month (UTC)). It resets at the start of the next month (UTC); the service's operator can raise it with TALKIDE_LIMIT_PROJECT_MONTH_TOKENS.",
    );
  });
});
