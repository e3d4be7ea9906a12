import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { perTurnCostUsd } from "./cost.ts";
import { runOneTurn } from "./testing/one-turn.ts";
import type { ClaudeTurnResult, ClaudeTurnSuccess } from "./turn-result.ts";
import { startFakeMessagesApi, type FakeMessagesApi } from "./testing/fake-messages-api.ts";
import {
  REAL_CLAUDE_PATH,
  REAL_CLAUDE_VERSION,
  realClaudeEnv,
  realClaudeSuiteCanRun,
} from "./testing/real-claude.ts";
import { isUnknownSessionFailure } from "./unknown-session.ts";
import { detectClaudeVersion } from "./version.ts";
import {
  instructionReminders,
  lastUserPrompt,
  newInstructionReminders,
  systemBlocks,
  wireMessages,
} from "./testing/wire.ts";

const canRun = realClaudeSuiteCanRun("claude-cli wire suite (sessions)");

// The real Claude Code CLI (npm @anthropic-ai/claude-code, pinned) against the fake Messages
// API on loopback: sessions, resume and how instruction files travel. Findings: WIRE-NOTES.md.

const CLAUDE_MD = "# Project Alpha\n\nRules of the house.\n\n@.talkide/active-writer.md\n";
const WRITER_ANNA = "The active writer is Anna.\n";
const WRITER_BORIS = "The active writer is Boris.\n";

describe.skipIf(!canRun)("real claude at the wire: sessions and instruction files", () => {
  const claudePath = REAL_CLAUDE_PATH ?? "";
  let api: FakeMessagesApi;
  let root: string;
  let project: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    api = await startFakeMessagesApi({ reply: { text: "Noted." } });
    root = await mkdtemp(join(tmpdir(), "claude-wire-session-"));
    project = join(root, "project");
    await mkdir(join(project, ".talkide"), { recursive: true });
    await writeFile(join(project, "CLAUDE.md"), CLAUDE_MD);
    await writeFile(join(project, ".talkide", "active-writer.md"), WRITER_ANNA);
    env = realClaudeEnv({ baseUrl: api.url, home: join(root, "home") });
  });
  afterAll(async () => {
    await api.close();
    await rm(root, { recursive: true, force: true });
  });

  async function turn(prompt: string, resumeSessionId?: string): Promise<ClaudeTurnResult> {
    return runOneTurn({
      claudePath,
      cwd: project,
      prompt,
      env,
      timeoutMs: 60_000,
      resumeSessionId,
      extraArgs: ["--exclude-dynamic-system-prompt-sections"],
    });
  }

  function succeeded(result: ClaudeTurnResult): ClaudeTurnSuccess {
    if (!result.ok) throw new Error(`turn failed: ${JSON.stringify(result)}`);
    return result;
  }

  /** The one model request a turn made (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: no others). */
  function onlyNewRequest(before: number) {
    const added = api.messageRequests().slice(before);
    expect(added).toHaveLength(1);
    return added[0] ?? expect.unreachable();
  }

  it("reports the pinned version", async () => {
    expect(await detectClaudeVersion(claudePath, { env })).toBe(REAL_CLAUDE_VERSION);
  });

  it("runs a first turn, a resume with unchanged files, and resumes after each file changed", async () => {
    // Turn 1: fresh session. CLAUDE.md and its @-import arrive in a system-reminder block of
    // the first user message, each file under its absolute path, content trimmed.
    const first = succeeded(await turn("First message"));
    expect(first.sessionId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(first.events[0]).toMatchObject({
      type: "system",
      subtype: "init",
      session_id: first.sessionId,
    });
    expect(first.resultText).toBe("Noted.");
    expect(first.totalCostUsd).toBeGreaterThan(0);
    const request1 = onlyNewRequest(0);
    expect(request1.headers["x-claude-code-session-id"]).toBe(first.sessionId);
    expect(lastUserPrompt(request1)).toBe("First message");
    const [initial] = instructionReminders(request1);
    expect(initial?.kind).toBe("initial");
    expect(initial?.files.map((f) => [f.path, f.content])).toEqual([
      [join(project, "CLAUDE.md"), CLAUDE_MD.trimEnd()],
      [join(project, ".talkide", "active-writer.md"), WRITER_ANNA.trimEnd()],
    ]);
    // Instruction files are never part of the system prompt.
    expect(JSON.stringify(systemBlocks(request1))).not.toContain("Rules of the house");

    // Turn 2: resume, nothing changed. Same session, the history is replayed byte-identically
    // and the turn adds only its prompt: no instruction reminder.
    const second = succeeded(await turn("Second message", first.sessionId));
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.totalCostUsd).toBeGreaterThan(first.totalCostUsd ?? 0);
    expect(perTurnCostUsd(first.totalCostUsd, second.totalCostUsd)).toBeGreaterThan(0);
    const request2 = onlyNewRequest(1);
    expect(systemBlocks(request2)).toEqual(systemBlocks(request1));
    expect(wireMessages(request2)[0]).toEqual(wireMessages(request1)[0]);
    expect(newInstructionReminders(request2)).toEqual([]);
    expect(lastUserPrompt(request2)).toBe("Second message");

    // Turn 3: the imported file changed. The resumed turn's user message starts with a
    // reminder holding only that file, whole.
    await writeFile(join(project, ".talkide", "active-writer.md"), WRITER_BORIS);
    const third = succeeded(await turn("Third message", first.sessionId));
    expect(third.sessionId).toBe(first.sessionId);
    const [writerChanged, ...noMore] = newInstructionReminders(onlyNewRequest(2));
    expect(noMore).toEqual([]);
    expect(writerChanged?.kind).toBe("changed");
    expect(writerChanged?.files.map((f) => [f.path, f.content])).toEqual([
      [join(project, ".talkide", "active-writer.md"), WRITER_BORIS.trimEnd()],
    ]);

    // Turn 4: CLAUDE.md itself changed (the import did not): only CLAUDE.md is re-sent.
    const claudeMdV2 = CLAUDE_MD.replace("Rules of the house.", "New rules of the house.");
    await writeFile(join(project, "CLAUDE.md"), claudeMdV2);
    succeeded(await turn("Fourth message", first.sessionId));
    const [claudeMdChanged] = newInstructionReminders(onlyNewRequest(3));
    expect(claudeMdChanged?.files.map((f) => [f.path, f.content])).toEqual([
      [join(project, "CLAUDE.md"), claudeMdV2.trimEnd()],
    ]);

    // Rewriting a file with the same bytes is not a change.
    await writeFile(join(project, "CLAUDE.md"), claudeMdV2);
    succeeded(await turn("Fifth message", first.sessionId));
    expect(newInstructionReminders(onlyNewRequest(4))).toEqual([]);
  });

  it("fails a resume of an unknown session with is_error, before calling the API", async () => {
    const before = api.requests.length;
    const result = await turn("Hello?", "7d0c1e55-0000-4000-8000-000000000000");
    expect(result.ok).toBe(false);
    expect(isUnknownSessionFailure(result)).toBe(true);
    if (result.ok) return;
    expect(result.reason).toBe("is_error");
    expect(result.sessionId).toBeNull();
    // Decided by the error result, while the process was still running (it exits with 1).
    expect(result.exitCode).toBeNull();
    expect(api.requests.length).toBe(before);
  });
});
