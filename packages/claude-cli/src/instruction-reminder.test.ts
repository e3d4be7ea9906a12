import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  changedInstructionReminder,
  changedInstructionReminderBytes,
} from "./instruction-reminder.ts";
import { parseInstructionReminder } from "./testing/wire.ts";

describe("changedInstructionReminder", () => {
  it("matches the reminder Claude Code 2.1.330 sent for a change of writer (WIRE-NOTES.md)", () => {
    // The wire suite of @talkide/be measured 385 bytes for exactly this file and path.
    const files = [
      {
        absolutePath: "/tmp/talkide-be-test-XXXXXX/workspaces/project-1/.talkide/active-writer.md",
        content: "# Aktuálně píše\nBob\n",
      },
    ];
    expect(changedInstructionReminderBytes(files)).toBe(385);
    const parsed = parseInstructionReminder(changedInstructionReminder(files) ?? "");
    expect(parsed?.kind).toBe("changed");
    expect(parsed?.files).toEqual([
      {
        path: files[0]?.absolutePath,
        label: "project instructions, checked into the codebase",
        content: "# Aktuálně píše\nBob",
      },
    ]);
  });

  it("adds nothing when no instruction file changed", () => {
    expect(changedInstructionReminder([])).toBeNull();
    expect(changedInstructionReminderBytes([])).toBe(0);
  });

  const file = fc.record({
    absolutePath: fc.stringMatching(/^\/[a-z0-9/._-]{1,40}\.md$/),
    content: fc.string({ unit: "grapheme", maxLength: 200 }),
  });

  test.prop([fc.array(file, { minLength: 1, maxLength: 3 })])(
    "the wire parser reads back every file, whole and trimmed at the end, in order",
    (files) => {
      const text = changedInstructionReminder(files) ?? "";
      const parsed = parseInstructionReminder(text);
      expect(parsed?.kind).toBe("changed");
      expect(parsed?.bytes).toBe(changedInstructionReminderBytes(files));
      // Content that itself looks like a section header would confuse any reader, the CLI's
      // own included; the bytes stay exact either way.
      if (files.every((f) => !f.content.includes("Contents of "))) {
        expect(parsed?.files.map((f) => [f.path, f.content])).toEqual(
          files.map((f) => [f.absolutePath, f.content.trimEnd()]),
        );
      }
    },
  );

  test.prop([fc.array(file, { minLength: 1, maxLength: 3 }), fc.string({ maxLength: 20 })])(
    "trailing white space of a file costs nothing: the CLI trims it",
    (files, tail) => {
      const padded = files.map((f) => ({ ...f, content: f.content + tail.replace(/\S/g, " ") }));
      expect(changedInstructionReminderBytes(padded)).toBe(changedInstructionReminderBytes(files));
    },
  );
});
