import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "./fake-messages-api.ts";
import {
  instructionReminders,
  lastUserPrompt,
  newInstructionReminders,
  parseInstructionReminder,
  systemBlocks,
  systemPromptText,
} from "./wire.ts";

// Texts as Claude Code 2.1.330 sent them (paths shortened), see WIRE-NOTES.md.
const INITIAL =
  "<system-reminder>\nCodebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.\n\n" +
  "Contents of /w/p/CLAUDE.md (project instructions, checked into the codebase):\n\n# Project\n\n@.talkide/active-writer.md\n\n" +
  "Contents of /w/p/.talkide/active-writer.md (project instructions, checked into the codebase):\n\nWriter: Anna\n</system-reminder>";
const CHANGED =
  "<system-reminder>\nInstruction files were re-read when this session started; these differ from their earlier copies — each replaces its earlier copy, and the instructions preamble above still applies:\n\n" +
  "Contents of /w/p/CLAUDE.md (project instructions, checked into the codebase):\n\n# Project v2\n\n" +
  "Instructions no longer present: /w/p/.talkide/active-writer.md\n</system-reminder>\n";

function request(body: unknown): RecordedRequest {
  const rawBody = JSON.stringify(body);
  return {
    index: 0,
    method: "POST",
    path: "/v1/messages",
    query: "",
    headers: {},
    body,
    rawBody,
    bodyBytes: Buffer.byteLength(rawBody),
  };
}

describe("parseInstructionReminder", () => {
  it("reads the first turn's reminder: both files with their trimmed content", () => {
    const reminder = parseInstructionReminder(INITIAL);
    expect(reminder?.kind).toBe("initial");
    expect(reminder?.files).toEqual([
      {
        path: "/w/p/CLAUDE.md",
        label: "project instructions, checked into the codebase",
        content: "# Project\n\n@.talkide/active-writer.md",
      },
      {
        path: "/w/p/.talkide/active-writer.md",
        label: "project instructions, checked into the codebase",
        content: "Writer: Anna",
      },
    ]);
    expect(reminder?.bytes).toBe(Buffer.byteLength(INITIAL));
  });

  it("reads a resumed turn's change reminder, removed files included", () => {
    const reminder = parseInstructionReminder(CHANGED);
    expect(reminder?.kind).toBe("changed");
    expect(reminder?.files.map((f) => [f.path, f.content])).toEqual([
      ["/w/p/CLAUDE.md", "# Project v2"],
    ]);
    expect(reminder?.removed).toEqual(["/w/p/.talkide/active-writer.md"]);
  });

  it("ignores other system reminders and plain text", () => {
    expect(
      parseInstructionReminder(
        "<system-reminder>\nAttribution for git commits\n</system-reminder>\n",
      ),
    ).toBeNull();
    expect(parseInstructionReminder("Hello")).toBeNull();
  });
});

describe("request readers", () => {
  const body = {
    system: [
      { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.330.13b;" },
      { type: "text", text: "You are a Claude agent.", cache_control: { type: "ephemeral" } },
    ],
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: INITIAL },
          { type: "text", text: "first" },
        ],
      },
      { role: "system", content: [{ type: "text", text: "# Environment" }] },
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
      {
        role: "user",
        content: [
          { type: "text", text: CHANGED },
          { type: "text", text: "second" },
        ],
      },
    ],
  };

  it("reads system blocks and the joined system prompt", () => {
    expect(systemBlocks(request(body))).toHaveLength(2);
    expect(systemPromptText(request(body))).toBe(
      "x-anthropic-billing-header: cc_version=2.1.330.13b;\n\nYou are a Claude agent.",
    );
    expect(systemBlocks(request({ system: "plain" }))).toEqual([{ type: "text", text: "plain" }]);
  });

  it("tells the turn's prompt and the reminders the turn added from the history", () => {
    expect(lastUserPrompt(request(body))).toBe("second");
    expect(instructionReminders(request(body)).map((r) => r.kind)).toEqual(["initial", "changed"]);
    expect(newInstructionReminders(request(body)).map((r) => r.kind)).toEqual(["changed"]);
  });
});
