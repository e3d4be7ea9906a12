import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  instructionReminders,
  newInstructionReminders,
  REAL_CLAUDE_VERSION,
  systemBlocks,
  systemPromptText,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MARA_PROMPT,
  startWireBench,
  realClaudeCanRun,
  WIRE_PERSONAL_DATA,
  type WireBench,
} from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be wire suite");

/**
 * At the wire, with the default (split) layout: the five points of the contract, checked in
 * the request bodies the real CLI sends. The byte counts are in BENCHMARKS.md (run with
 * TALKIDE_WIRE_REPORT=1 to print them).
 */
describe.skipIf(!canRun)("at the wire: the real Claude Code CLI spawned by the service", () => {
  let bench: WireBench;
  let projectA: { id: number; workspaceDir: string };
  let projectB: { id: number; workspaceDir: string };
  let firstA: RecordedRequest;

  beforeAll(async () => {
    bench = await startWireBench("split");
    projectA = await bench.newProject();
    projectB = await bench.newProject();
    // The first embedded database of a test file can take most of a minute on a loaded box.
  });
  afterAll(async () => {
    await bench.close();
  });

  it("(1) the first request carries the rendered CLAUDE.md and the active-writer file", async () => {
    firstA = await bench.turn(bench.anna, projectA.id, "Stejná první zpráva", "first turn");
    const file = (path: string) => readFileSync(join(projectA.workspaceDir, path), "utf8");
    expect(file("CLAUDE.md")).toContain("\n@.talkide/active-writer.md\n");
    const reminders = instructionReminders(firstA);
    expect(reminders.map((r) => r.kind)).toEqual(["initial"]);
    // Each file as written (the CLI drops the final newline), the import after its importer.
    expect(reminders[0]?.files.map((f) => ({ path: f.path, content: f.content }))).toEqual([
      { path: join(projectA.workspaceDir, "CLAUDE.md"), content: file("CLAUDE.md").trimEnd() },
      {
        path: join(projectA.workspaceDir, ".talkide", "active-writer.md"),
        content: file(".talkide/active-writer.md").trimEnd(),
      },
    ]);
  });

  it("(2) Mara's agent prompt is in the system prompt, and only there", () => {
    expect(systemPromptText(firstA)).toContain(MARA_PROMPT);
    const messages = JSON.stringify((firstA.body as { messages: unknown }).messages);
    expect(messages).not.toContain(MARA_PROMPT.slice(0, 200));
  });

  it("(5) two projects with identical state send identical system blocks", async () => {
    const firstB = await bench.turn(
      bench.anna,
      projectB.id,
      "Stejná první zpráva",
      "first turn, 2nd project",
    );
    expect(systemBlocks(firstB)).toEqual(systemBlocks(firstA));
    expect(JSON.stringify(systemBlocks(firstA))).not.toContain(projectA.workspaceDir);
  });

  it("(3) a resumed turn with unchanged state adds no instruction-file reminder", async () => {
    const resumed = await bench.turn(
      bench.anna,
      projectA.id,
      "Druhá zpráva",
      "resumed, unchanged state",
    );
    expect(newInstructionReminders(resumed)).toEqual([]);
    expect(await bench.recordedReminderBytes(projectA.id)).toBe(0);
  });

  it("(4) a change of writer adds a reminder holding only .talkide/active-writer.md", async () => {
    const changed = await bench.turn(
      bench.bob,
      projectA.id,
      "Třetí zpráva",
      "resumed, writer changed",
    );
    const reminders = newInstructionReminders(changed);
    expect(reminders.map((r) => [r.kind, r.removed])).toEqual([["changed", []]]);
    expect(reminders[0]?.files.map((f) => [f.path, f.content])).toEqual([
      [join(projectA.workspaceDir, ".talkide", "active-writer.md"), "# Aktuálně píše\nBob"],
    ]);
    // What the service recorded before the spawn is what the CLI then sent.
    expect(await bench.recordedReminderBytes(projectA.id)).toBe(reminders[0]?.bytes);
  });

  it("observed: the uncached billing-header block follows the first message, not the project", async () => {
    // The pinned Claude Code puts `x-anthropic-billing-header: cc_version=<version>.<hex>` first in
    // `system`; the hex suffix changed with the conversation's first message in every run.
    // Point (5) holds for identical first messages; for different ones, every block but this
    // uncached one is identical.
    const other = await bench.turn(
      bench.anna,
      projectB.id,
      "Úplně jiná zpráva",
      "resumed, 2nd project",
    );
    const [billingA, ...restA] = systemBlocks(firstA);
    const [billingB, ...restB] = systemBlocks(other);
    expect(restB).toEqual(restA);
    for (const block of [billingA, billingB]) {
      expect(block?.text).toMatch(
        /^x-anthropic-billing-header: cc_version=\d+\.\d+\.\d+\.[0-9a-f]+; cc_entrypoint=sdk-cli;$/,
      );
      expect(block?.text).toContain(`cc_version=${REAL_CLAUDE_VERSION}.`);
      expect(block?.cache_control).toBeUndefined();
    }
  });

  it("sends no email, display name or phone to the model provider", () => {
    const personal = Object.values(WIRE_PERSONAL_DATA).flatMap((p) => [
      p.email,
      p.displayName,
      p.phone,
    ]);
    expect(bench.fake.requests.length).toBeGreaterThanOrEqual(5);
    for (const request of bench.fake.requests) {
      const wire = `${request.path} ${JSON.stringify(request.headers)} ${request.rawBody}`;
      expect(personal.filter((value) => wire.includes(value))).toEqual([]);
    }
  });
});
