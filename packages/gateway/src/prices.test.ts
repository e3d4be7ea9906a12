import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { limitSettingName } from "./limits.ts";
import { DEFAULT_PRICES, priceEntryOf, priceOf, requestCostUsd, roundUsd } from "./prices.ts";
import { gatewaySettingsFromEnv, PRICES_FILE_SETTING } from "./settings.ts";
import { NO_USAGE } from "./usage.ts";

describe("the price table", () => {
  it("finds a dated or suffixed id's own entry, never a shorter neighbour's", () => {
    expect(priceEntryOf(DEFAULT_PRICES, "claude-opus-5-5")).toBe("claude-opus-5-5");
    expect(priceEntryOf(DEFAULT_PRICES, "claude-opus-5-5[1m]")).toBe("claude-opus-5-5");
    expect(priceEntryOf(DEFAULT_PRICES, "claude-opus-4-5-20251101")).toBe("claude-opus-4-5");
    expect(priceEntryOf(DEFAULT_PRICES, "claude-sonnet-4-20250514")).toBe("claude-sonnet-4");
    expect(priceEntryOf(DEFAULT_PRICES, "claude-haiku-4-5-20251001")).toBe("claude-haiku-4-5");
    expect(priceEntryOf(DEFAULT_PRICES, "gpt-4")).toBeNull();
    expect(priceOf(DEFAULT_PRICES, "gpt-4")).toBe(DEFAULT_PRICES.fallback);
  });

  it("prices Claude Opus 5.5 as the pinned CLI does: $4 in, $20 out, $5/$8 writes, $0.20 reads", () => {
    const price = priceOf(DEFAULT_PRICES, "claude-opus-5-5");
    expect(price).toMatchObject({
      input: 4,
      output: 20,
      cacheWrite5m: 5,
      cacheWrite1h: 8,
      cacheRead: 0.2,
    });
    const usage = {
      ...NO_USAGE,
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      cacheWrite5mTokens: 1_000_000,
      cacheWrite1hTokens: 1_000_000,
      cacheReadTokens: 1_000_000,
    };
    expect(roundUsd(requestCostUsd(price, usage))).toBe(4 + 20 + 5 + 8 + 0.2);
    expect(roundUsd(requestCostUsd(price, { ...usage, inferenceGeo: "us" }))).toBe(
      roundUsd((4 + 20 + 5 + 8 + 0.2) * 1.1),
    );
  });

  it("takes Haiku 5.5's long-prompt prices above 100,000 prompt tokens", () => {
    const price = priceOf(DEFAULT_PRICES, "claude-haiku-5-5");
    expect(requestCostUsd(price, { ...NO_USAGE, inputTokens: 100_000 })).toBeCloseTo(0.01, 12);
    expect(requestCostUsd(price, { ...NO_USAGE, inputTokens: 100_001 })).toBeCloseTo(0.0500005, 12);
  });
});

describe("the gateway's settings", () => {
  it("has the documented defaults", () => {
    const { limits, prices } = gatewaySettingsFromEnv({});
    expect(prices).toBe(DEFAULT_PRICES);
    expect(limits.filter((l) => l.cap !== null).map((l) => [l.setting, l.cap])).toEqual([
      ["TALKIDE_LIMIT_USER_DAY_USD", 20],
      ["TALKIDE_LIMIT_USER_MONTH_USD", 200],
      ["TALKIDE_LIMIT_PROJECT_DAY_USD", 50],
      ["TALKIDE_LIMIT_PROJECT_MONTH_USD", 500],
    ]);
  });

  it("takes caps and off, and refuses anything else naming the variable, never the value", () => {
    const { limits } = gatewaySettingsFromEnv({
      [limitSettingName("user", "day", "usd")]: "off",
      [limitSettingName("project", "month", "tokens")]: "5000000",
    });
    expect(limits.find((l) => l.setting === "TALKIDE_LIMIT_USER_DAY_USD")?.cap).toBeNull();
    expect(limits.find((l) => l.setting === "TALKIDE_LIMIT_PROJECT_MONTH_TOKENS")?.cap).toBe(
      5_000_000,
    );
    expect(() => gatewaySettingsFromEnv({ TALKIDE_LIMIT_USER_DAY_TOKENS: "12.5" })).toThrow(
      /TALKIDE_LIMIT_USER_DAY_TOKENS: must be a whole number of tokens, or off/,
    );
    let message = "";
    try {
      gatewaySettingsFromEnv({ TALKIDE_LIMIT_USER_DAY_USD: "lots-secret" });
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain("TALKIDE_LIMIT_USER_DAY_USD: must be an amount in USD");
    expect(message).not.toContain("lots-secret");
  });

  it("lays a price file over the built-in table", () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-prices-"));
    const file = join(dir, "prices.json");
    writeFileSync(
      file,
      JSON.stringify({
        source: "our contract with the provider, 2026-12-01",
        models: {
          "claude-opus-5-5": {
            input: 3,
            output: 15,
            cacheWrite5m: 3.75,
            cacheWrite1h: 6,
            cacheRead: 0.15,
          },
        },
      }),
    );
    const { prices } = gatewaySettingsFromEnv({ [PRICES_FILE_SETTING]: file });
    expect(priceOf(prices, "claude-opus-5-5").input).toBe(3);
    expect(priceOf(prices, "claude-sonnet-5").input).toBe(2);
    expect(prices.source).toContain("our contract");
    writeFileSync(file, JSON.stringify({ source: "x", models: { m: { input: 1 } } }));
    expect(() => gatewaySettingsFromEnv({ [PRICES_FILE_SETTING]: file })).toThrow(
      /TALKIDE_MODEL_PRICES_FILE: the file does not match/,
    );
    expect(() =>
      gatewaySettingsFromEnv({ [PRICES_FILE_SETTING]: join(dir, "missing.json") }),
    ).toThrow(/cannot be read/);
  });
});
