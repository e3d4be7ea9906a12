import { describe, expect, it } from "vitest";
import { promptCacheTtlEnv } from "./prompt-cache-ttl.ts";

describe("promptCacheTtlEnv", () => {
  it("turns the 1-hour cache on with the CLI's own switch", () => {
    expect(promptCacheTtlEnv("1h")).toEqual({ ENABLE_PROMPT_CACHING_1H: "1" });
  });

  it("adds nothing for 5 minutes, so the CLI sends its defaults unchanged", () => {
    expect(promptCacheTtlEnv("5m")).toEqual({});
  });
});
