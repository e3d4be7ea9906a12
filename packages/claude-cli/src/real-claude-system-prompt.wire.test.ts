import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClaudeArgsOptions } from "./claude-args.ts";
import { runOneTurn } from "./testing/one-turn.ts";
import { startFakeMessagesApi, type FakeMessagesApi } from "./testing/fake-messages-api.ts";
import {
  REAL_CLAUDE_PATH,
  REAL_CLAUDE_VERSION,
  realClaudeEnv,
  realClaudeSuiteCanRun,
} from "./testing/real-claude.ts";
import { lastUserPrompt, systemBlocks, type TextBlock } from "./testing/wire.ts";

const canRun = realClaudeSuiteCanRun("claude-cli wire suite (system prompt)");

// The real Claude Code CLI at the wire: what ends up in the `system` blocks for the flags
// the apps use (--append-system-prompt, --plugin-dir + --agent,
// --exclude-dynamic-system-prompt-sections). Findings: WIRE-NOTES.md.

const EXCLUDE_DYNAMIC = "--exclude-dynamic-system-prompt-sections";
const STANDING_PROMPT = "STANDING-PROMPT: reply with the ticlawk CLI.";
const AGENT_BODY = "AGENT-PROMPT: You are Mara, the project manager.";

describe.skipIf(!canRun)("real claude at the wire: the system prompt", () => {
  const claudePath = REAL_CLAUDE_PATH ?? "";
  let api: FakeMessagesApi;
  let root: string;
  let env: Record<string, string>;
  let pluginDir: string;

  beforeAll(async () => {
    api = await startFakeMessagesApi();
    root = await mkdtemp(join(tmpdir(), "claude-wire-system-"));
    env = realClaudeEnv({ baseUrl: api.url, home: join(root, "home") });
    for (const name of ["project-one", "second-project"]) {
      await mkdir(join(root, name), { recursive: true });
      await writeFile(join(root, name, "CLAUDE.md"), "# Same state\n");
    }
    pluginDir = join(root, "plugin");
    await mkdir(join(pluginDir, ".claude-plugin"), { recursive: true });
    await mkdir(join(pluginDir, "agents"), { recursive: true });
    await writeFile(
      join(pluginDir, ".claude-plugin", "plugin.json"),
      `${JSON.stringify({ name: "talkide-wire", version: "1.0.0", description: "wire test" })}\n`,
    );
    await writeFile(
      join(pluginDir, "agents", "pm.md"),
      `---\nname: pm\ndescription: Project manager\n---\n\n${AGENT_BODY}\n`,
    );
  });
  afterAll(async () => {
    await api.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Runs one fresh turn and returns the system blocks of the request it made. */
  async function systemOf(
    project: string,
    args: ClaudeArgsOptions = {},
    prompt = "Same first message",
  ): Promise<TextBlock[]> {
    const before = api.messageRequests().length;
    const result = await runOneTurn({
      claudePath,
      cwd: join(root, project),
      prompt,
      env,
      timeoutMs: 60_000,
      ...args,
    });
    if (!result.ok) throw new Error(`turn failed: ${JSON.stringify(result)}`);
    const requests = api.messageRequests().slice(before);
    expect(requests).toHaveLength(1);
    const request = requests[0] ?? expect.unreachable();
    expect(lastUserPrompt(request)).toBe(prompt);
    return systemBlocks(request);
  }

  it("two projects with the same files send identical system blocks only with the dynamic sections excluded", async () => {
    const one = await systemOf("project-one", { extraArgs: [EXCLUDE_DYNAMIC] });
    const two = await systemOf("second-project", { extraArgs: [EXCLUDE_DYNAMIC] });
    expect(two).toEqual(one);
    expect(one).toHaveLength(3);
    expect(one[0]?.text).toMatch(
      /^x-anthropic-billing-header: cc_version=\d+\.\d+\.\d+\.[0-9a-f]{3}; cc_entrypoint=sdk-cli;$/,
    );
    expect(one[0]?.text).toContain(`cc_version=${REAL_CLAUDE_VERSION}.`);
    expect(one[0]?.cache_control).toBeUndefined();

    // Without the flag the memory section (it names the project's path) is in the system prompt.
    const withDynamic = await systemOf("project-one");
    expect(withDynamic.at(-1)?.text).toContain(join(root, "home", ".claude", "projects"));
    expect(one.at(-1)?.text).not.toContain(root);
  });

  it("the billing header block follows the session's first message; the other blocks do not", async () => {
    const same = await systemOf("project-one", { extraArgs: [EXCLUDE_DYNAMIC] });
    const other = await systemOf(
      "project-one",
      { extraArgs: [EXCLUDE_DYNAMIC] },
      "An entirely different opening message of another length",
    );
    expect(other.slice(1)).toEqual(same.slice(1));
    expect(other[0]?.text).not.toBe(same[0]?.text);
  });

  it("--append-system-prompt text ends the last system block", async () => {
    const blocks = await systemOf("project-one", {
      appendSystemPrompt: STANDING_PROMPT,
      extraArgs: [EXCLUDE_DYNAMIC],
    });
    expect(blocks.at(-1)?.text.endsWith(`\n\n${STANDING_PROMPT}`)).toBe(true);
    expect(blocks.filter((b) => b.text.includes(STANDING_PROMPT))).toHaveLength(1);
  });

  it("a resumed session keeps its first turn's system prompt, whatever the resume passes", async () => {
    const before = api.messageRequests().length;
    const cwd = join(root, "project-one");
    const common = { claudePath, cwd, env, timeoutMs: 60_000, extraArgs: [EXCLUDE_DYNAMIC] };
    const first = await runOneTurn({
      ...common,
      prompt: "one",
      appendSystemPrompt: "STANDING v1",
    });
    if (!first.ok) throw new Error(first.message);
    const resumedChanged = await runOneTurn({
      ...common,
      prompt: "two",
      resumeSessionId: first.sessionId,
      appendSystemPrompt: "STANDING v2",
    });
    const resumedWithout = await runOneTurn({
      ...common,
      prompt: "three",
      resumeSessionId: first.sessionId,
    });
    expect([resumedChanged.ok, resumedWithout.ok]).toEqual([true, true]);
    const [one, two, three] = api.messageRequests().slice(before).map(systemBlocks);
    expect(one?.at(-1)?.text.endsWith("\n\nSTANDING v1")).toBe(true);
    expect(two).toEqual(one);
    expect(three).toEqual(one);
  });

  it("--agent from --plugin-dir replaces the default system prompt with the agent's body", async () => {
    const blocks = await systemOf("project-one", {
      pluginDir,
      agent: "pm",
      appendSystemPrompt: STANDING_PROMPT,
      extraArgs: [EXCLUDE_DYNAMIC],
    });
    expect(blocks.map((b) => b.text).slice(1)).toEqual([
      "You are Claude Code, Anthropic's official CLI for Claude, running within the Claude Agent SDK.",
      `${AGENT_BODY}\n\n${STANDING_PROMPT}`,
    ]);
  });
});
