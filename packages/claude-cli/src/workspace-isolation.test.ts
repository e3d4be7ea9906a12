import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  assertWorkspaceIsolated,
  ensureWorkspaceRepository,
  findIsolationBreaches,
  findWorkspaceInstructionFiles,
  WorkspaceIsolationError,
} from "./workspace-isolation.ts";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "isolation-"));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

describe("findIsolationBreaches", () => {
  it("finds every ancestor instruction source, a foreign git tree, the config dir's and the managed dir's", async () => {
    const root = await tree({
      "a/CLAUDE.md": "x",
      "a/CLAUDE.local.md": "x",
      "a/AGENTS.md": "x",
      "a/.claude/CLAUDE.md": "x",
      "a/.claude/AGENTS.md": "x",
      "a/.claude/rules/r.md": "x",
      "a/.claude/settings.json": "{}",
      "a/.claude/settings.local.json": "{}",
      "a/.git/HEAD": "x",
      "a/b/ws/CLAUDE.md": "ours",
      "cfg/CLAUDE.md": "x",
      "cfg/rules/r.md": "x",
      "cfg/settings.json": "{}",
      "cfg/agents/x.md": "x",
      "cfg/projects/-a/session.jsonl": "not an instruction",
      "etc/CLAUDE.md": "x",
      "etc/managed-settings.json": "{}",
      "etc/.claude/rules/m.md": "x",
    });
    const breaches = await findIsolationBreaches({
      workspace: join(root, "a", "b", "ws"),
      claudeConfigDir: join(root, "cfg"),
      managedDir: join(root, "etc"),
    });
    const relative = breaches.map((b) => [b.path.slice(root.length + 1), b.source]);
    expect(relative).toEqual([
      ["a/CLAUDE.md", "ancestor"],
      ["a/CLAUDE.local.md", "ancestor"],
      ["a/AGENTS.md", "ancestor"],
      ["a/.claude/CLAUDE.md", "ancestor"],
      ["a/.claude/AGENTS.md", "ancestor"],
      ["a/.claude/rules", "ancestor"],
      ["a/.claude/settings.json", "ancestor"],
      ["a/.claude/settings.local.json", "ancestor"],
      ["a/.git", "foreign_git"],
      ["cfg/CLAUDE.md", "config_dir"],
      ["cfg/rules", "config_dir"],
      ["cfg/settings.json", "config_dir"],
      ["cfg/agents", "config_dir"],
      ["etc/CLAUDE.md", "managed"],
      ["etc/.claude/rules", "managed"],
      ["etc/managed-settings.json", "managed"],
    ]);
  });

  it("checks the root itself when it holds the workspaces, and finds nothing in a clean tree", async () => {
    const root = await tree({
      "workspaces/CLAUDE.md": "x",
      "clean/workspaces/.keep": "",
      "cfg/.claude.json": "{}",
    });
    const options = { claudeConfigDir: join(root, "cfg"), managedDir: join(root, "none") };
    expect(
      (
        await findIsolationBreaches({
          ...options,
          workspace: join(root, "workspaces"),
          isRoot: true,
        })
      ).map((b) => b.path),
    ).toEqual([join(root, "workspaces", "CLAUDE.md")]);
    expect(
      await findIsolationBreaches({
        ...options,
        workspace: join(root, "clean", "workspaces"),
        isRoot: true,
      }),
    ).toEqual([]);
  });

  it("refuses a config dir inside the workspace (the agent could write its settings)", async () => {
    const root = await tree({ "ws/.keep": "" });
    const breaches = await findIsolationBreaches({
      workspace: join(root, "ws"),
      claudeConfigDir: join(root, "ws", ".claude-config"),
      managedDir: join(root, "none"),
    });
    expect(breaches).toEqual([{ path: join(root, "ws", ".claude-config"), source: "config_dir" }]);
  });

  it("throws an error that names each file and says what to do", async () => {
    const root = await tree({ "a/AGENTS.md": "x", "a/ws/.keep": "" });
    const error = await assertWorkspaceIsolated({
      workspace: join(root, "a", "ws"),
      claudeConfigDir: join(root, "cfg"),
      managedDir: join(root, "none"),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceIsolationError);
    expect((error as WorkspaceIsolationError).code).toBe("workspace_not_isolated");
    expect((error as Error).message).toContain(join(root, "a", "AGENTS.md"));
    expect((error as Error).message).toMatch(/Move or remove these files/);
  });
});

describe("findWorkspaceInstructionFiles", () => {
  it("reports instruction files inside the workspace except ours, nested ones too", async () => {
    const root = await tree({
      "CLAUDE.md": "ours",
      ".talkide/active-writer.md": "ours",
      "CLAUDE.local.md": "x",
      ".claude/rules/deep/r.md": "x",
      ".claude/settings.json": "{}",
      ".mcp.json": "{}",
      "src/CLAUDE.md": "x",
      "src/a/b/c/AGENTS.md": "x",
      "node_modules/pkg/CLAUDE.md": "not the agent's",
      "README.md": "not an instruction file",
    });
    expect(await findWorkspaceInstructionFiles(root, ["CLAUDE.md"])).toEqual([
      ".claude/rules/deep/r.md",
      ".claude/settings.json",
      ".mcp.json",
      "CLAUDE.local.md",
      "src/CLAUDE.md",
      "src/a/b/c/AGENTS.md",
    ]);
  });
});

describe("ensureWorkspaceRepository", () => {
  it("gives turns that start at once in a new workspace one repository, and no failure", async () => {
    const workspace = join(await tree({}), "ws-at-once");
    await mkdir(workspace, { recursive: true });
    const created = await Promise.all(
      Array.from({ length: 8 }, () => ensureWorkspaceRepository(workspace)),
    );
    expect(created.filter(Boolean)).toHaveLength(1);
    expect(await ensureWorkspaceRepository(workspace)).toBe(false);
  });

  it("runs git init once; an existing repository is left alone", async () => {
    const root = await tree({ "ws/file": "x" });
    expect(await ensureWorkspaceRepository(join(root, "ws"))).toBe(true);
    expect(await ensureWorkspaceRepository(join(root, "ws"))).toBe(false);
    expect(
      (
        await findIsolationBreaches({
          workspace: join(root, "ws", "sub"),
          claudeConfigDir: join(root, "c"),
          managedDir: join(root, "n"),
        })
      ).map((b) => b.source),
    ).toEqual(["foreign_git"]);
  });
});
