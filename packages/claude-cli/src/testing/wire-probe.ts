#!/usr/bin/env node
// Measures what the real Claude Code CLI sends to the Messages API for the cases the apps
// care about and prints a Markdown report (the numbers in WIRE-NOTES.md come from here).
// Run: pnpm --filter @talkide/claude-cli run wire:probe
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runOneTurn } from "./one-turn.ts";
import type { ClaudeArgsOptions } from "../claude-args.ts";
import { startFakeMessagesApi, type RecordedRequest } from "./fake-messages-api.ts";
import { resolveRealClaudePath, realClaudeEnv } from "./real-claude.ts";
import { newInstructionReminders, systemBlocks, wireMessages } from "./wire.ts";

const EXCLUDE = "--exclude-dynamic-system-prompt-sections";
const CLAUDE_MD =
  "# Project Alpha\n\nA small web shop. Stack: TypeScript, Fastify, Postgres.\n\n@.talkide/active-writer.md\n";
const WRITER_ANNA = "## Active writer\n\nAnna writes this turn. Address her as Anna.\n";
const WRITER_BORIS = "## Active writer\n\nBoris writes this turn. Address him as Boris.\n";
const STANDING =
  "Reply through the ticlawk CLI: `ticlawk reply <text>`. Never answer in plain text.";

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

async function main(): Promise<void> {
  const claudePath = resolveRealClaudePath();
  const api = await startFakeMessagesApi({ reply: { text: "Noted." } });
  const root = await mkdtemp(join(tmpdir(), "wire-probe-"));
  const project = join(root, "project");
  await mkdir(join(project, ".talkide"), { recursive: true });
  await writeFile(join(project, "CLAUDE.md"), CLAUDE_MD);
  await writeFile(join(project, ".talkide", "active-writer.md"), WRITER_ANNA);
  const env = realClaudeEnv({ baseUrl: api.url, home: join(root, "home") });
  const rows: string[] = [];

  async function turn(
    label: string,
    prompt: string,
    options: ClaudeArgsOptions,
  ): Promise<{ sessionId: string; request: RecordedRequest }> {
    const before = api.messageRequests().length;
    const result = await runOneTurn({
      claudePath,
      cwd: project,
      prompt,
      env,
      timeoutMs: 60_000,
      ...options,
    });
    if (!result.ok) throw new Error(`${label}: ${result.reason}: ${result.message}`);
    const added = api.messageRequests().slice(before);
    const request = added[0];
    if (added.length !== 1 || request === undefined)
      throw new Error(`${label}: expected one request`);
    const reminders = newInstructionReminders(request);
    const system = systemBlocks(request).map((b) => bytes(b.text));
    const messages = wireMessages(request);
    const firstUser = messages[0]?.blocks.map((b) => bytes(b.text)) ?? [];
    const systemRole = messages
      .filter((m) => m.role === "system")
      .flatMap((m) => m.blocks)
      .map((b) => bytes(b.text));
    rows.push(
      `| ${label} | ${request.bodyBytes} | ${system.join(" + ")} | ${firstUser.join(" + ")} | ${systemRole.join(" + ") || "–"} | ${messages.length} | ${reminders.map((r) => `${r.kind}: ${r.bytes} (${r.files.map((f) => `${f.path.slice(project.length + 1)} ${bytes(f.content)}`).join(", ")})`).join("; ") || "–"} |`,
    );
    return { sessionId: result.sessionId, request };
  }

  const first = await turn("1 fresh, exclude-dynamic", "First message", { extraArgs: [EXCLUDE] });
  const resume = { resumeSessionId: first.sessionId, extraArgs: [EXCLUDE] };
  await turn("2 resume, unchanged", "Second message", resume);
  await writeFile(join(project, ".talkide", "active-writer.md"), WRITER_BORIS);
  await turn("3 resume, writer changed", "Third message", resume);
  await writeFile(join(project, "CLAUDE.md"), CLAUDE_MD.replace("small", "tiny"));
  await turn("4 resume, CLAUDE.md changed", "Fourth message", resume);
  await turn("5 fresh, dynamic sections kept", "First message", {});
  const appended = await turn("6 fresh, --append-system-prompt", "First message", {
    appendSystemPrompt: STANDING,
    extraArgs: [EXCLUDE],
  });
  await turn("7 resume of 6 with a changed append text", "Second message", {
    resumeSessionId: appended.sessionId,
    appendSystemPrompt: `${STANDING} (v2)`,
    extraArgs: [EXCLUDE],
  });

  process.stdout.write(
    [
      `Claude Code ${claudePath}`,
      `project path: ${project} (${bytes(project)} bytes)`,
      `CLAUDE.md ${bytes(CLAUDE_MD)} bytes, active-writer.md ${bytes(WRITER_ANNA)} → ${bytes(WRITER_BORIS)} bytes, append text ${bytes(STANDING)} bytes`,
      "",
      "| case | request body bytes | system blocks (bytes) | first user message blocks (bytes) | system-role message (bytes) | messages | instruction reminders this turn added (bytes) |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
    ].join("\n"),
  );
  await api.close();
  await rm(root, { recursive: true, force: true });
}

await main();
