import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { buildClaudeArgs, MAX_ARGUMENT_BYTES } from "./claude-args.ts";
import { ClaudeCliError } from "./errors.ts";

const BASE = ["-p", "--output-format", "stream-json", "--verbose"];

describe("buildClaudeArgs", () => {
  it("a fresh turn is print mode with stream-json output and --verbose, nothing else", () => {
    expect(buildClaudeArgs()).toEqual(BASE);
    expect(buildClaudeArgs({})).toEqual(BASE);
  });

  it("puts every option in a fixed order, extraArgs last", () => {
    expect(
      buildClaudeArgs({
        extraArgs: ["--exclude-dynamic-system-prompt-sections"],
        agent: "talkide-pm",
        pluginDir: "/srv/plugins/mara",
        appendSystemPrompt: "Standing prompt\nline 2",
        resumeAtMessageId: "9d3c1a2b-4e5f-4a6b-8c7d-0e1f2a3b4c5d",
        resumeSessionId: "0f9c7a52-3b8e-4c61-9d2a-5e7f1b2c3d4e",
      }),
    ).toEqual([
      ...BASE,
      "--resume",
      "0f9c7a52-3b8e-4c61-9d2a-5e7f1b2c3d4e",
      "--resume-session-at",
      "9d3c1a2b-4e5f-4a6b-8c7d-0e1f2a3b4c5d",
      "--append-system-prompt",
      "Standing prompt\nline 2",
      "--plugin-dir",
      "/srv/plugins/mara",
      "--agent",
      "talkide-pm",
      "--exclude-dynamic-system-prompt-sections",
    ]);
  });

  it("keeps an append text that starts with a dash as one argument", () => {
    expect(buildClaudeArgs({ appendSystemPrompt: "- rule one" }).slice(-2)).toEqual([
      "--append-system-prompt",
      "- rule one",
    ]);
  });

  it.each([
    [{ resumeSessionId: "" }, "resumeSessionId", "invalid_option"],
    [{ resumeSessionId: "-x" }, "resumeSessionId", "invalid_option"],
    [{ resumeSessionId: " id" }, "resumeSessionId", "invalid_option"],
    [
      { resumeAtMessageId: "9d3c1a2b-4e5f-4a6b-8c7d-0e1f2a3b4c5d" },
      "resumeAtMessageId",
      "invalid_option",
    ],
    [{ resumeSessionId: "s", resumeAtMessageId: "-x" }, "resumeAtMessageId", "invalid_option"],
    [{ agent: "--print" }, "agent", "invalid_option"],
    [{ pluginDir: "" }, "pluginDir", "invalid_option"],
    [{ appendSystemPrompt: "" }, "appendSystemPrompt", "invalid_option"],
    [{ appendSystemPrompt: "a\0b" }, "appendSystemPrompt", "invalid_option"],
    [
      { appendSystemPrompt: "x".repeat(MAX_ARGUMENT_BYTES + 1) },
      "appendSystemPrompt",
      "argument_too_long",
    ],
    [{ extraArgs: ["--ok", ""] }, "extraArgs[1]", "invalid_option"],
  ] as const)("rejects %# at %s with %s", (options, path, code) => {
    let caught: unknown;
    try {
      buildClaudeArgs(options);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ClaudeCliError);
    expect((caught as ClaudeCliError).code).toBe(code);
    expect((caught as ClaudeCliError).path).toBe(path);
  });

  it("accepts an append text of exactly the per-argument maximum", () => {
    const text = "x".repeat(MAX_ARGUMENT_BYTES);
    expect(buildClaudeArgs({ appendSystemPrompt: text }).at(-1)).toBe(text);
  });

  const value = fc.string({ minLength: 1 }).filter((s) => !s.includes("\0"));
  const flagSafe = value.filter((s) => !s.startsWith("-") && s.trim() === s);

  test.prop(
    {
      resume: fc.option(flagSafe, { nil: undefined }),
      append: fc.option(value, { nil: undefined }),
      plugin: fc.option(flagSafe, { nil: undefined }),
      agent: fc.option(flagSafe, { nil: undefined }),
      extra: fc.array(value, { maxLength: 3 }),
    },
    { numRuns: 1000 },
  )(
    "every given value appears once, right after its flag",
    ({ resume, append, plugin, agent, extra }) => {
      const args = buildClaudeArgs({
        resumeSessionId: resume,
        appendSystemPrompt: append,
        pluginDir: plugin,
        agent,
        extraArgs: extra,
      });
      expect(args.slice(0, 4)).toEqual(BASE);
      const pairs: [string, string | undefined][] = [
        ["--resume", resume],
        ["--append-system-prompt", append],
        ["--plugin-dir", plugin],
        ["--agent", agent],
      ];
      let expectedLength = 4 + extra.length;
      for (const [flag, given] of pairs) {
        const at = args.indexOf(flag, 4);
        if (given === undefined) continue;
        expectedLength += 2;
        expect(args[at + 1]).toBe(given);
      }
      expect(args).toHaveLength(expectedLength);
      expect(args.slice(args.length - extra.length)).toEqual(extra);
    },
  );
});
