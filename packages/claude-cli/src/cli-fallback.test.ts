import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { cliFallbackIn } from "./cli-fallback.ts";

/** The line Claude Code 2.1.330 appends when it turned tool search off (measured at the wire). */
const REMINDER = JSON.stringify({
  parentUuid: "b7be7cb1-051a-47e6-abe7-a052f05c5e48",
  isSidechain: false,
  attachment: {
    type: "critical_system_reminder",
    content:
      "ToolSearch is no longer available. Tools listed earlier as deferred that are still available are declared in full: call them directly.",
  },
  type: "attachment",
  uuid: "98569312-7fdb-4bc9-acfb-7019b106a3fa",
  timestamp: "2026-11-28T03:38:14.601Z",
});

/** Transcript lines that are not the reminder: any JSON, or text that is not JSON. */
const otherLine = fc.oneof(
  fc.json().map((json) => json.replaceAll("\n", " ")),
  fc.string().map((text) => text.replaceAll("\n", " ")),
  // A member or the model quoting the sentence is not the CLI's reminder.
  fc.constant(
    JSON.stringify({
      type: "user",
      message: { role: "user", content: "ToolSearch is no longer available" },
    }),
  ),
);

describe("cliFallbackIn", () => {
  it("finds the reminder the CLI appends when it turned tool search off, among any other lines", () => {
    fc.assert(
      fc.property(fc.array(otherLine), fc.array(otherLine), (before, after) => {
        const content = [...before, REMINDER, ...after].join("\n");
        expect(cliFallbackIn(content)).toBe("tool_search_off");
      }),
    );
  });

  it("finds nothing in lines without it", () => {
    fc.assert(
      fc.property(fc.array(otherLine), (lines) => {
        expect(cliFallbackIn(lines.join("\n"))).toBeNull();
      }),
    );
  });

  it("counts only a reminder written at or after the turn's start", () => {
    const at = Date.parse("2026-11-28T03:38:14.601Z");
    expect(cliFallbackIn(REMINDER, at)).toBe("tool_search_off");
    expect(cliFallbackIn(REMINDER, at + 1)).toBeNull();
  });
});
