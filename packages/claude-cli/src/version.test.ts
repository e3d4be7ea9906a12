import { describe, expect, it } from "vitest";
import { ClaudeCliError } from "./errors.ts";
import { FAKE_CLAUDE_PATH } from "./testing/fake-claude-path.ts";
import { REAL_CLAUDE_VERSION } from "./testing/real-claude.ts";
import { detectClaudeVersion, parseClaudeVersion } from "./version.ts";

describe("detectClaudeVersion", () => {
  it("returns the version number of `claude --version`", async () => {
    expect(await detectClaudeVersion(FAKE_CLAUDE_PATH, { env: {} })).toBe(REAL_CLAUDE_VERSION);
    expect(
      await detectClaudeVersion(FAKE_CLAUDE_PATH, { env: { FAKE_CLAUDE_VERSION: "3.0.0-beta.2" } }),
    ).toBe("3.0.0-beta.2");
  });

  it("throws version_unreadable for a missing binary", async () => {
    const error = await detectClaudeVersion("/nonexistent/claude").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaudeCliError);
    expect((error as ClaudeCliError).code).toBe("version_unreadable");
    expect((error as ClaudeCliError).message).toContain("ENOENT");
  });

  it("throws version_unreadable when the output holds no version", async () => {
    const error = await detectClaudeVersion(FAKE_CLAUDE_PATH, {
      env: { FAKE_CLAUDE_VERSION: "unknown" },
    }).catch((e: unknown) => e);
    expect((error as ClaudeCliError).code).toBe("version_unreadable");
  });
});

describe("parseClaudeVersion", () => {
  it.each([
    ["2.1.330 (Claude Code)\n", "2.1.330"],
    ["1.0.0-rc.1 (Claude Code)", "1.0.0-rc.1"],
    ["Claude Code", null],
    ["", null],
  ])("%j → %s", (output, expected) => {
    expect(parseClaudeVersion(output)).toBe(expected);
  });
});
