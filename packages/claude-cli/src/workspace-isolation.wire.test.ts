import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOneTurn } from "./testing/one-turn.ts";
import { startFakeMessagesApi, type FakeMessagesApi } from "./testing/fake-messages-api.ts";
import { REAL_CLAUDE_PATH, realClaudeEnv, realClaudeSuiteCanRun } from "./testing/real-claude.ts";
import { instructionReminders } from "./testing/wire.ts";
import {
  findIsolationBreaches,
  findWorkspaceInstructionFiles,
  HERMETIC_CLAUDE_ENV,
} from "./workspace-isolation.ts";

/**
 * The isolation check against the real CLI: every file we plant in a place the pinned CLI reads
 * carries a canary; whatever canary reaches a request must come from a file the check reports
 * (so the check misses no source the CLI uses), and a tree the check passes sends no canary.
 */
const canRun = realClaudeSuiteCanRun("claude-cli wire suite (instruction sources)");

describe.skipIf(!canRun)("real claude at the wire: instruction sources", () => {
  let api: FakeMessagesApi;
  let root: string;
  beforeAll(async () => {
    api = await startFakeMessagesApi({ reply: { text: "Noted." } });
    root = await mkdtemp(join(tmpdir(), "claude-wire-isolation-"));
  });
  afterAll(async () => {
    await api.close();
    await rm(root, { recursive: true, force: true });
  });

  async function plant(base: string, files: readonly string[]): Promise<void> {
    for (const file of files) {
      const path = join(base, file);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.endsWith(".json") ? "{}" : `CANARY<${path}>\n`);
    }
  }

  async function turn(cwd: string, home: string, configDir: string) {
    await mkdir(cwd, { recursive: true });
    const before = api.messageRequests().length;
    const result = await runOneTurn({
      claudePath: REAL_CLAUDE_PATH ?? "",
      cwd,
      prompt: "hi",
      env: realClaudeEnv({
        baseUrl: api.url,
        home,
        extra: { CLAUDE_CONFIG_DIR: configDir, ...HERMETIC_CLAUDE_ENV },
      }),
      timeoutMs: 120_000,
      extraArgs: ["--exclude-dynamic-system-prompt-sections"],
    });
    expect(result.ok).toBe(true);
    const request = api.messageRequests()[before];
    if (request === undefined) throw new Error("the CLI sent no request");
    const canaries = [...JSON.stringify(request.body).matchAll(/CANARY<([^>]+)>/g)].map(
      (m) => m[1] ?? "",
    );
    return { request, canaries: [...new Set(canaries)].sort() };
  }

  /** Is `file` one of the breaches, or inside a reported directory? */
  function covered(file: string, reported: readonly string[]): boolean {
    return reported.some((path) => file === path || file.startsWith(`${path}/`));
  }

  it("every ancestor, home and config-dir file that reaches a request is one the check names", async () => {
    const base = join(root, "one");
    const home = join(base, "home");
    const configDir = join(base, "config");
    const workspace = join(home, "projects", "a", "ws");
    await plant(join(home, "projects"), [
      "CLAUDE.md",
      "CLAUDE.local.md",
      ".claude/CLAUDE.md",
      ".claude/rules/r.md",
    ]);
    await plant(home, [".claude/CLAUDE.md", ".claude/rules/h.md"]);
    await plant(join(home, "projects", "a"), ["AGENTS.md", ".claude/rules/nested/r.md"]);
    await plant(configDir, ["CLAUDE.md", "rules/c.md"]);
    const { canaries } = await turn(workspace, home, configDir);
    expect(canaries.length).toBeGreaterThanOrEqual(8);
    const reported = (
      await findIsolationBreaches({
        workspace,
        claudeConfigDir: configDir,
        managedDir: join(base, "etc"),
      })
    ).map((b) => b.path);
    expect(canaries.filter((file) => !covered(file, reported))).toEqual([]);
  });

  it("AGENTS.md (read where no CLAUDE.md is found) and a foreign git tree are named too", async () => {
    const base = join(root, "two");
    const outer = join(base, "outer");
    const workspace = join(outer, "ws");
    await plant(outer, ["AGENTS.md", ".claude/AGENTS.md"]);
    execFileSync("git", ["init", "--quiet", outer]);
    const { canaries } = await turn(workspace, join(base, "home"), join(base, "config"));
    expect(canaries).toEqual([join(outer, ".claude", "AGENTS.md"), join(outer, "AGENTS.md")]);
    const reported = (
      await findIsolationBreaches({
        workspace,
        claudeConfigDir: join(base, "config"),
        managedDir: join(base, "etc"),
      })
    ).map((b) => b.path);
    expect(canaries.filter((file) => !covered(file, reported))).toEqual([]);
    expect(reported).toContain(join(outer, ".git"));
  });

  it("a tree the check passes sends no canary: auto memory is off, only the workspace's own files load", async () => {
    const base = join(root, "three");
    const home = join(base, "home");
    const configDir = join(base, "config");
    const workspace = join(base, "workspaces", "ws");
    await plant(workspace, ["CLAUDE.md", "CLAUDE.local.md"]);
    // A memory file an agent wrote in an earlier session: with auto memory off it is not read.
    const slug = workspace.replace(/[^A-Za-z0-9]/g, "-");
    await plant(configDir, [`projects/${slug}/memory/MEMORY.md`]);
    await plant(home, [".claude/CLAUDE.md"]); // not an ancestor, and not the config dir
    execFileSync("git", ["init", "--quiet", workspace]);
    expect(
      await findIsolationBreaches({
        workspace,
        claudeConfigDir: configDir,
        managedDir: join(base, "etc"),
      }),
    ).toEqual([]);
    const { request, canaries } = await turn(workspace, home, configDir);
    expect(canaries).toEqual(
      [join(workspace, "CLAUDE.local.md"), join(workspace, "CLAUDE.md")].sort(),
    );
    expect(instructionReminders(request).flatMap((r) => r.files.map((f) => f.path))).toEqual([
      join(workspace, "CLAUDE.md"),
      join(workspace, "CLAUDE.local.md"),
    ]);
    // What the agent could have written there is reported, never silently loaded.
    expect(await findWorkspaceInstructionFiles(workspace, ["CLAUDE.md"])).toEqual([
      "CLAUDE.local.md",
    ]);
  });
});
