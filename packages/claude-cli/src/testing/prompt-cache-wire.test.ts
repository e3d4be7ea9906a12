import { describe, expect, it } from "vitest";
import type { PromptCacheLedgerEntry } from "./prompt-cache.ts";
import { cacheControls, ledgerLine, toolsAndSystemTokens } from "./prompt-cache-wire.ts";

const entry: PromptCacheLedgerEntry = {
  requestIndex: 3,
  at: 0,
  model: "claude-sonnet-4-5",
  promptTokens: 1200,
  uncached: 0,
  write5m: 100,
  write1h: 50,
  read: 1050,
  idealNew: 150,
  breakpoints: [
    { block: 1, section: "system", prefixTokens: 800, ttl: "5m", outcome: "read" },
    { block: 2, section: "system", prefixTokens: 1000, ttl: "5m", outcome: "read" },
    { block: 5, section: "messages", prefixTokens: 1200, ttl: "5m", outcome: "written" },
  ],
};

describe("prompt-cache readers for wire tests", () => {
  it("finds every cache_control marker, nested or not, in body order", () => {
    const body = {
      system: [{ type: "text", text: "a", cache_control: { type: "ephemeral", ttl: "1h" } }],
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "b", cache_control: { type: "ephemeral" } }],
        },
      ],
      cache_control: null,
    };
    expect(cacheControls(body)).toEqual([{ type: "ephemeral", ttl: "1h" }, { type: "ephemeral" }]);
    expect(cacheControls("text")).toEqual([]);
  });

  it("says a request's figures in one line, and where tools + system end", () => {
    expect(ledgerLine(entry)).toBe(
      "prompt 1200, write 150, read 1050, uncached 0; breakpoints system@800:read system@1000:read messages@1200:written",
    );
    expect(toolsAndSystemTokens(entry)).toBe(1000);
    expect(toolsAndSystemTokens({ ...entry, breakpoints: [] })).toBeUndefined();
  });
});
