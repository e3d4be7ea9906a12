import { describe, expect, it } from "vitest";
import { hasNoInputForClaude } from "./prompt-input.ts";

describe("hasNoInputForClaude", () => {
  it("follows Claude Code's String#trim, not the contract's white space", () => {
    expect(hasNoInputForClaude(" \n\t")).toBe(true);
    expect(hasNoInputForClaude("\ufeff")).toBe(true);
    expect(hasNoInputForClaude("\u0085")).toBe(false);
    expect(hasNoInputForClaude(" a ")).toBe(false);
  });
});
