import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_CLAUDE_PATH, FAKE_CLAUDE_SCRIPT } from "./fake-claude-path.ts";
import { readFakeClaudeRecords } from "./fake-claude-records.ts";
import { REAL_CLAUDE_VERSION } from "./real-claude.ts";

const run = promisify(execFile);
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "fake-claude-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Spawns the fake directly (no WarmClaudeProcess), feeding `input` on stdin. */
function spawnFake(args: string[], env: Record<string, string>, input = "hi") {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(FAKE_CLAUDE_PATH, args, { env, cwd: root }, (error, stdout, stderr) => {
      resolve({
        code: error === null ? 0 : ((error as { code?: number }).code ?? null),
        stdout,
        stderr,
      });
    });
    child.stdin?.end(input);
  });
}

const PRINT = ["-p", "--output-format", "stream-json", "--verbose"];
const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("fake claude", () => {
  it("ships as an executable script with a node shebang, launched through FAKE_CLAUDE_PATH, and reports the pinned release", async () => {
    expect((await stat(FAKE_CLAUDE_SCRIPT)).mode & 0o111).not.toBe(0);
    expect((await stat(FAKE_CLAUDE_PATH)).mode & 0o111).not.toBe(0);
    const { stdout } = await run(FAKE_CLAUDE_PATH, ["--version"], { env: {} });
    expect(stdout).toBe(`${REAL_CLAUDE_VERSION} (Claude Code)\n`);
  });

  it("writes init, assistant and result events with the fields of Claude Code 2.1.337", async () => {
    const { code, stdout } = await spawnFake(PRINT, { ANTHROPIC_API_KEY: "k" });
    expect(code).toBe(0);
    const [init, assistant, result] = lines(stdout);
    expect(Object.keys(init ?? {})).toEqual(
      expect.arrayContaining([
        "type",
        "subtype",
        "cwd",
        "session_id",
        "tools",
        "mcp_servers",
        "model",
        "permissionMode",
        "apiKeySource",
        "claude_code_version",
        "uuid",
        "sandbox_enabled",
        "written_at",
      ]),
    );
    expect(init).toMatchObject({
      type: "system",
      subtype: "init",
      cwd: root,
      apiKeySource: "ANTHROPIC_API_KEY",
      claude_code_version: REAL_CLAUDE_VERSION,
      written_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
    });
    expect(assistant).toMatchObject({
      type: "assistant",
      message: { type: "message", role: "assistant", content: [{ type: "text", text: "Done." }] },
      parent_tool_use_id: null,
      session_id: init?.["session_id"],
    });
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Done.",
      session_id: init?.["session_id"],
      total_cost_usd: 0.0125,
      num_turns: 1,
      duration_ms: expect.any(Number) as number,
      usage: { input_tokens: expect.any(Number) as number },
      written_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
    });
  });

  it("refuses stream-json without --verbose with Claude Code's message", async () => {
    const { code, stdout, stderr } = await spawnFake(["-p", "--output-format", "stream-json"], {});
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "Error: When using --print, --output-format=stream-json requires --verbose\n",
    );
  });

  it("rejects an unknown scenario name with exit status 64", async () => {
    const { code, stderr } = await spawnFake(PRINT, { FAKE_CLAUDE_SCENARIO: "explode" });
    expect(code).toBe(64);
    expect(stderr).toContain("unknown FAKE_CLAUDE_SCENARIO");
  });

  it("answers an unknown --resume id like the real CLI: one error result, no init, exit 1", async () => {
    const { code, stdout, stderr } = await spawnFake([...PRINT, "--resume", "abc"], {
      FAKE_CLAUDE_STATE_DIR: join(root, "state"),
    });
    expect(code).toBe(1);
    const events = lines(stdout);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      num_turns: 0,
      session_id: "abc",
      errors: ["No conversation found with session ID: abc"],
      startup_failure_reason: "resume_target_not_found",
    });
    expect(events[0]).not.toHaveProperty("written_at");
    expect(stderr).toBe("No conversation found with session ID: abc\n");
  });

  it("tool_search_off: answers as usual and appends the CLI's tool-search-off reminder to the transcript", async () => {
    const configDir = join(root, "config-tool-search-off");
    const { code, stdout } = await spawnFake(PRINT, {
      FAKE_CLAUDE_SCENARIO: "tool_search_off",
      CLAUDE_CONFIG_DIR: configDir,
    });
    expect(code).toBe(0);
    const events = lines(stdout);
    expect(events.map((e) => e.type)).toEqual(["system", "assistant", "result"]);
    const sessionId = String(events[0]?.session_id);
    const file = join(
      configDir,
      "projects",
      root.replace(/[^a-zA-Z0-9]/g, "-"),
      `${sessionId}.jsonl`,
    );
    const [line] = lines(await readFile(file, "utf8"));
    expect(line).toMatchObject({
      type: "attachment",
      sessionId,
      attachment: { type: "critical_system_reminder" },
    });
    expect((line?.attachment as { content: string }).content).toMatch(
      /^ToolSearch is no longer available\./,
    );
  });

  it("records argv, cwd, env, stdin and the FAKE_CLAUDE_RUN outcome", async () => {
    const recordFile = join(root, "calls.jsonl");
    const env = {
      FAKE_CLAUDE_RECORD: recordFile,
      FAKE_CLAUDE_RUN: "echo ran; echo oops >&2",
      ID: "7",
    };
    await spawnFake([...PRINT, "--agent", "talkide-pm"], env, "the prompt\n");
    const [record] = await readFakeClaudeRecords(recordFile);
    expect(record).toMatchObject({
      argv: [...PRINT, "--agent", "talkide-pm"],
      cwd: root,
      env,
      stdin: "the prompt\n",
      scenario: "ok",
      run: { command: "echo ran; echo oops >&2", exitCode: 0, stdout: "ran\n", stderr: "oops\n" },
    });
  });
});
