import { readFileSync } from "node:fs";
import { join } from "node:path";
import { instructionReminders, newInstructionReminders } from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWireBench, realClaudeCanRun, type WireBench } from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be single-layout wire suite");

/**
 * The comparison behind the split default: with the single file, a change of writer makes
 * the CLI re-send the whole CLAUDE.md. Byte counts in BENCHMARKS.md.
 */
describe.skipIf(!canRun)("at the wire with the single-file layout", () => {
  let bench: WireBench;
  beforeAll(async () => {
    bench = await startWireBench("single");
  });
  afterAll(async () => {
    await bench.close();
  });

  it("re-sends the whole CLAUDE.md when the writer changes, nothing when nothing changed", async () => {
    const project = await bench.newProject();
    const claudeMd = (): string => readFileSync(join(project.workspaceDir, "CLAUDE.md"), "utf8");
    const first = await bench.turn(bench.anna, project.id, "První zpráva", "first turn");
    expect(instructionReminders(first)[0]?.files.map((f) => f.content)).toEqual([
      claudeMd().trimEnd(),
    ]);
    const unchanged = await bench.turn(
      bench.anna,
      project.id,
      "Druhá zpráva",
      "resumed, unchanged state",
    );
    expect(newInstructionReminders(unchanged)).toEqual([]);
    expect(await bench.recordedReminderBytes(project.id)).toBe(0);
    const changed = await bench.turn(
      bench.bob,
      project.id,
      "Třetí zpráva",
      "resumed, writer changed",
    );
    const files = newInstructionReminders(changed).flatMap((r) => r.files);
    // What the service recorded before the spawn is what the CLI then sent.
    expect(await bench.recordedReminderBytes(project.id)).toBe(
      newInstructionReminders(changed).reduce((sum, r) => sum + r.bytes, 0),
    );
    expect(files.map((f) => [f.path, f.content])).toEqual([
      [join(project.workspaceDir, "CLAUDE.md"), claudeMd().trimEnd()],
    ]);
    expect(claudeMd().endsWith("# Aktuálně píše\nBob\n")).toBe(true);
  });
});
