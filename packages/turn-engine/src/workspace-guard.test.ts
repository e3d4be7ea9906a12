import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkspaceIsolationError } from "@talkide/claude-cli";
import { afterEach, describe, expect, it } from "vitest";
import { assertDirectoriesIsolated, guardWorkspace, inspectWorkspace } from "./workspace-guard.ts";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

/** A fresh directory with an empty config dir and a workspace below it. */
async function layout(): Promise<{ root: string; workspaceDir: string; claudeConfigDir: string }> {
  const root = await mkdtemp(join(tmpdir(), "turn-engine-guard-"));
  roots.push(root);
  const workspaceDir = join(root, "workspaces", "one");
  const claudeConfigDir = join(root, "claude");
  await mkdir(workspaceDir, { recursive: true });
  await mkdir(claudeConfigDir, { recursive: true });
  return { root, workspaceDir, claudeConfigDir };
}

describe("the workspace guard", () => {
  it("makes the workspace its own git repository once and lists instruction files that are not the host's", async () => {
    const { workspaceDir, claudeConfigDir } = await layout();
    await writeFile(join(workspaceDir, "CLAUDE.md"), "Rendered by the host.\n");
    await writeFile(join(workspaceDir, "CLAUDE.local.md"), "Written by the agent.\n");
    const first = await guardWorkspace({ workspaceDir, claudeConfigDir, ours: ["CLAUDE.md"] });
    expect(first).toEqual({
      ok: true,
      instructionFiles: ["CLAUDE.local.md"],
      quarantinedTo: null,
      repositoryCreated: true,
    });
    expect((await stat(join(workspaceDir, ".git"))).isDirectory()).toBe(true);
    const second = await guardWorkspace({ workspaceDir, claudeConfigDir });
    expect(second).toEqual({
      ok: true,
      instructionFiles: ["CLAUDE.local.md", "CLAUDE.md"],
      quarantinedTo: null,
      repositoryCreated: false,
    });
  });

  it("moves the instruction files out of the workspace into a new folder of quarantineDir", async () => {
    const { root, workspaceDir, claudeConfigDir } = await layout();
    const quarantineDir = join(root, "quarantine");
    await writeFile(join(workspaceDir, "CLAUDE.md"), "Rendered by the host.\n");
    await writeFile(join(workspaceDir, "CLAUDE.local.md"), "Written by the agent.\n");
    await mkdir(join(workspaceDir, ".claude", "commands"), { recursive: true });
    await writeFile(join(workspaceDir, ".claude", "commands", "go.md"), "Go.\n");
    await mkdir(join(workspaceDir, "src"), { recursive: true });
    await symlink("/etc/hostname", join(workspaceDir, "src", "AGENTS.md"));
    const guarded = await guardWorkspace({
      workspaceDir,
      claudeConfigDir,
      ours: ["CLAUDE.md"],
      quarantineDir,
    });
    if (!guarded.ok) throw new Error(guarded.message);
    expect(guarded.instructionFiles).toEqual([
      ".claude/commands/go.md",
      "CLAUDE.local.md",
      "src/AGENTS.md",
    ]);
    const folder = guarded.quarantinedTo ?? "";
    expect(folder.startsWith(join(quarantineDir, ""))).toBe(true);
    expect(await readFile(join(folder, "CLAUDE.local.md"), "utf8")).toBe("Written by the agent.\n");
    expect(await readFile(join(folder, ".claude", "commands", "go.md"), "utf8")).toBe("Go.\n");
    // A link is moved as a link, never followed.
    expect(await readlink(join(folder, "src", "AGENTS.md"))).toBe("/etc/hostname");
    expect(await readFile(join(workspaceDir, "CLAUDE.md"), "utf8")).toBe("Rendered by the host.\n");
    expect(await inspectWorkspace(workspaceDir, claudeConfigDir, ["CLAUDE.md"])).toEqual([]);
    // The next move goes to a folder of its own.
    await writeFile(join(workspaceDir, "CLAUDE.local.md"), "Again.\n");
    const again = await guardWorkspace({
      workspaceDir,
      claudeConfigDir,
      ours: ["CLAUDE.md"],
      quarantineDir,
    });
    if (!again.ok) throw new Error(again.message);
    expect(again.quarantinedTo).not.toBe(folder);
    expect(await readdir(quarantineDir)).toHaveLength(2);
  });

  it("refuses a workspace below an instruction file, naming it, and creates nothing", async () => {
    const { root, workspaceDir, claudeConfigDir } = await layout();
    const above = join(root, "workspaces", "AGENTS.md");
    await writeFile(above, "Rules for every workspace.\n");
    const guarded = await guardWorkspace({ workspaceDir, claudeConfigDir });
    expect(guarded.ok).toBe(false);
    if (guarded.ok) return;
    expect(guarded.code).toBe("workspace_not_isolated");
    expect(guarded.error).toBeInstanceOf(WorkspaceIsolationError);
    expect(guarded.message).toContain(above);
    expect(guarded.message.endsWith(" Nothing was spawned.")).toBe(true);
    await expect(stat(join(workspaceDir, ".git"))).rejects.toThrow();
  });

  it("reports any other failure of the check as workspace_check_failed", async () => {
    const guarded = await guardWorkspace({
      workspaceDir: "/unused",
      claudeConfigDir: "/unused",
      inspected: Promise.reject(new Error("The disk went away.")),
    });
    expect(guarded).toMatchObject({
      ok: false,
      code: "workspace_check_failed",
      message: "The disk went away. Nothing was spawned.",
    });
  });

  it("uses an inspection the host started earlier instead of inspecting again", async () => {
    const { workspaceDir, claudeConfigDir } = await layout();
    const guarded = await guardWorkspace({
      workspaceDir,
      claudeConfigDir,
      inspected: Promise.resolve(["found-before.md"]),
    });
    expect(guarded).toMatchObject({ ok: true, instructionFiles: ["found-before.md"] });
  });

  it("lets the isolation refusal win over a failed listing", async () => {
    const { root, claudeConfigDir } = await layout();
    await writeFile(join(root, "CLAUDE.md"), "Above.\n");
    // The listing fails (no such workspace); the isolation check refuses all the same.
    await expect(
      inspectWorkspace(join(root, "workspaces", "missing"), claudeConfigDir),
    ).rejects.toBeInstanceOf(WorkspaceIsolationError);
  });
});

describe("the start check", () => {
  it("names the directory by its label, checking a root's own files too", async () => {
    const { root, claudeConfigDir } = await layout();
    await writeFile(join(root, "workspaces", "CLAUDE.md"), "In the root.\n");
    const error = await assertDirectoriesIsolated(claudeConfigDir, [
      { dir: join(root, "workspaces"), label: "The workspaces directory (SETTING)", isRoot: true },
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceIsolationError);
    expect((error as Error).message).toContain("The workspaces directory (SETTING)");
    expect((error as Error).message).toContain(join(root, "workspaces", "CLAUDE.md"));
  });

  it("passes isolated directories", async () => {
    const { workspaceDir, claudeConfigDir } = await layout();
    await expect(
      assertDirectoriesIsolated(claudeConfigDir, [{ dir: workspaceDir, label: "The workspace" }]),
    ).resolves.toBeUndefined();
  });
});
