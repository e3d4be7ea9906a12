import { afterEach, describe, expect, it, vi } from "vitest";
import { realClaudeSuiteCanRun } from "./real-claude.ts";

describe("realClaudeSuiteCanRun", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("runs when the binary is there", () => {
    expect(realClaudeSuiteCanRun("a wire suite", "/opt/claude")).toBe(true);
  });

  it("fails the suite under CI=true when the binary is missing, saying what to do", () => {
    vi.stubEnv("CI", "true");
    expect(() => realClaudeSuiteCanRun("a wire suite", null)).toThrow(
      /a wire suite needs the pinned claude binary .*pnpm install.*Under CI=true this suite fails/,
    );
  });

  it("skips loudly outside CI", () => {
    vi.stubEnv("CI", "");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(realClaudeSuiteCanRun("a wire suite", null)).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("SKIPPING: a wire suite"));
  });
});
