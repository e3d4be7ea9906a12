import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOneTurn } from "./testing/one-turn.ts";
import {
  startFakeMessagesApi,
  type FakeMessagesApi,
  type RecordedRequest,
} from "./testing/fake-messages-api.ts";
import { REAL_CLAUDE_PATH, realClaudeEnv, realClaudeSuiteCanRun } from "./testing/real-claude.ts";
import { systemPromptText } from "./testing/wire.ts";

// What a delegated agent (a plugin agent run by the main agent's Agent tool) receives, with
// and without `omitClaudeMd: true` in its front matter. Findings: WIRE-NOTES.md, "Subagents".

const CLAUDE_MD_CANARY = "Roster-canary-5d1e: Anna prefers Pinia";
const SLICE = "Build the login form; the team prefers Pinia for state.";
const LEAD_BODY = "You are the lead. Delegate everything.";
const SPECIALIST_BODY = "You are the specialist who gets only a slice.";

function agentFile(name: string, body: string, omitClaudeMd: boolean): string {
  return [
    "---",
    `name: ${name}`,
    `description: The ${name} of the test plugin.`,
    ...(omitClaudeMd ? ["omitClaudeMd: true"] : []),
    "---",
    "",
    body,
    "",
  ].join("\n");
}

const canRun = realClaudeSuiteCanRun("claude-cli wire suite (delegated agents)");

describe.skipIf(!canRun)("real claude at the wire: delegated agents", () => {
  let api: FakeMessagesApi;
  let root: string;

  beforeAll(async () => {
    api = await startFakeMessagesApi({
      reply: (request) => {
        const system = systemPromptText(request);
        const body = request.rawBody;
        // The lead delegates once (naming the specialist the test asks for), then finishes.
        if (system.includes(LEAD_BODY) && !body.includes('"tool_result"')) {
          const target = /DELEGATE-TO:([\w:-]+)/.exec(body)?.[1] ?? "";
          return {
            content: [
              {
                type: "tool_use",
                id: `toolu_01Delegate${target.replace(/\W/g, "")}`,
                name: "Agent",
                input: { description: "Delegated task", prompt: SLICE, subagent_type: target },
              },
            ],
          };
        }
        return { text: "Done." };
      },
    });
    root = await mkdtemp(join(tmpdir(), "claude-wire-subagent-"));
    const plugin = join(root, "plugin");
    await mkdir(join(plugin, ".claude-plugin"), { recursive: true });
    await mkdir(join(plugin, "agents"), { recursive: true });
    await writeFile(
      join(plugin, ".claude-plugin", "plugin.json"),
      `${JSON.stringify({ name: "wire", description: "Test plugin." })}\n`,
    );
    await writeFile(join(plugin, "agents", "lead.md"), agentFile("lead", LEAD_BODY, false));
    await writeFile(
      join(plugin, "agents", "isolated.md"),
      agentFile("isolated", SPECIALIST_BODY, true),
    );
    await writeFile(
      join(plugin, "agents", "inheriting.md"),
      agentFile("inheriting", SPECIALIST_BODY, false),
    );
  });
  afterAll(async () => {
    await api.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Runs the lead with a delegation to `target`; returns the specialist's first request. */
  async function delegate(target: string): Promise<RecordedRequest> {
    const project = join(root, target.replace(/\W/g, "-"), "project");
    await mkdir(project, { recursive: true });
    await writeFile(join(project, "CLAUDE.md"), `# Team\n\n${CLAUDE_MD_CANARY}\n`);
    const before = api.messageRequests().length;
    const result = await runOneTurn({
      claudePath: REAL_CLAUDE_PATH ?? "",
      cwd: project,
      prompt: `Please delegate. DELEGATE-TO:${target}`,
      env: realClaudeEnv({
        baseUrl: api.url,
        home: join(root, target.replace(/\W/g, "-"), "home"),
      }),
      timeoutMs: 120_000,
      pluginDir: join(root, "plugin"),
      agent: "wire:lead",
      extraArgs: ["--exclude-dynamic-system-prompt-sections"],
    });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const specialist = api
      .messageRequests()
      .slice(before)
      .find((r) => systemPromptText(r).includes(SPECIALIST_BODY));
    if (specialist === undefined) {
      const seen = api
        .messageRequests()
        .slice(before)
        .map((r) =>
          JSON.stringify((r.body as { messages: unknown[] }).messages.slice(-2)).slice(-1500),
        );
      throw new Error(`no request of the delegated ${target}: ${seen.join("\n-----\n")}`);
    }
    return specialist;
  }

  it("an agent with omitClaudeMd: true gets the delegation prompt and no byte of CLAUDE.md", async () => {
    const request = await delegate("wire:isolated");
    expect(request.rawBody).toContain(JSON.stringify(SLICE).slice(1, -1));
    expect(request.rawBody).not.toContain("Roster-canary-5d1e");
    expect(request.rawBody).not.toContain("CLAUDE.md (project instructions");
  });

  it("without it, the delegated agent receives the whole CLAUDE.md (why the flag is needed)", async () => {
    const request = await delegate("wire:inheriting");
    expect(request.rawBody).toContain(JSON.stringify(SLICE).slice(1, -1));
    expect(request.rawBody).toContain("Roster-canary-5d1e");
  });
});
