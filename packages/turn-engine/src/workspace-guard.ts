import { randomUUID } from "node:crypto";
import { copyFile, lstat, mkdir, readlink, rename, symlink, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  assertWorkspaceIsolated,
  ensureWorkspaceRepository,
  findWorkspaceInstructionFiles,
  WorkspaceIsolationError,
} from "@talkide/claude-cli";

/**
 * The stage before every spawn (contract section 6): the workspace's ancestors, the CLI's
 * config dir and the managed policy dir hold no instruction source the host did not write
 * (else nothing is spawned), the workspace is its own git repository, and the instruction
 * files inside it are listed, to be reported. One guard for both hosts.
 */
export interface WorkspaceGuardOptions {
  readonly workspaceDir: string;
  readonly claudeConfigDir: string;
  /** Files of the workspace the host writes itself (the backend's CLAUDE.md): not reported. */
  readonly ours?: readonly string[];
  /** `inspectWorkspace` of the same workspace, when the host started it earlier (side by side). */
  readonly inspected?: Promise<readonly string[]>;
  /**
   * Moves the instruction files found out of the workspace, into a new folder of this
   * directory, before anything is spawned: the CLI never loads what the agent (or anyone with
   * the workspace) planted. Unset: they are only reported.
   */
  readonly quarantineDir?: string;
}

export type GuardedWorkspace =
  | {
      readonly ok: true;
      /** Instruction files inside the workspace the host did not write (relative paths). */
      readonly instructionFiles: readonly string[];
      /** The folder they were moved to (same relative paths), or null when they stayed. */
      readonly quarantinedTo: string | null;
      /** True when this guard made the workspace a git repository. */
      readonly repositoryCreated: boolean;
    }
  | {
      readonly ok: false;
      /** `workspace_not_isolated` names the breach; `workspace_check_failed` is anything else. */
      readonly code: "workspace_not_isolated" | "workspace_check_failed";
      /** What the turn's failure says: the check's own words, and that nothing was spawned. */
      readonly message: string;
      readonly error: unknown;
    };

export async function guardWorkspace(options: WorkspaceGuardOptions): Promise<GuardedWorkspace> {
  try {
    const instructionFiles = await (options.inspected ??
      inspectWorkspace(options.workspaceDir, options.claudeConfigDir, options.ours));
    const quarantinedTo =
      options.quarantineDir === undefined || instructionFiles.length === 0
        ? null
        : await quarantine(options.workspaceDir, instructionFiles, options.quarantineDir);
    // Made only for a workspace that passed the isolation check.
    const repositoryCreated = await ensureWorkspaceRepository(options.workspaceDir);
    return { ok: true, instructionFiles, quarantinedTo, repositoryCreated };
  } catch (error) {
    return {
      ok: false,
      code:
        error instanceof WorkspaceIsolationError
          ? "workspace_not_isolated"
          : "workspace_check_failed",
      message: `${error instanceof Error ? error.message : String(error)} Nothing was spawned.`,
      error,
    };
  }
}

/**
 * Moves `files` (relative to the workspace) into a new folder of `quarantineDir` named by the
 * time and a random suffix (sortable, never reused), keeping their relative paths. A rename
 * moves a symbolic link itself, never its target. Returns the folder.
 */
export async function quarantine(
  workspaceDir: string,
  files: readonly string[],
  quarantineDir: string,
): Promise<string> {
  const folder = join(
    quarantineDir,
    `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID().slice(0, 8)}`,
  );
  for (const file of files) {
    const target = join(folder, file);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await move(join(workspaceDir, file), target);
  }
  return folder;
}

/** A rename, or across file systems a copy (a link as a link) and an unlink. */
async function move(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
  }
  if ((await lstat(from)).isSymbolicLink()) await symlink(await readlink(from), to);
  else await copyFile(from, to);
  await unlink(from);
}

/**
 * The part of the guard that only reads: the isolation check (it throws
 * `WorkspaceIsolationError`) and the instruction files inside the workspace, side by side (this
 * is on every turn's path); the isolation check's refusal wins. The `.git` the guard may create
 * afterwards is never among the files.
 */
export async function inspectWorkspace(
  workspaceDir: string,
  claudeConfigDir: string,
  ours: readonly string[] = [],
): Promise<readonly string[]> {
  const [isolated, files] = await Promise.allSettled([
    assertWorkspaceIsolated({ workspace: workspaceDir, claudeConfigDir }),
    findWorkspaceInstructionFiles(workspaceDir, ours),
  ]);
  if (isolated.status === "rejected") throw asError(isolated.reason);
  if (files.status === "rejected") throw asError(files.reason);
  return files.value;
}

/** One directory the start check covers, and how its refusal names it. */
export interface IsolatedDirectory {
  readonly dir: string;
  /** Begins the refusal's message: "The project workspace /srv/w/project-1". */
  readonly label: string;
  /** The directory that holds the workspaces: its ancestors are every workspace's ancestors. */
  readonly isRoot?: boolean;
}

/**
 * The start check: a host that cannot guarantee isolation does not start, and the error names
 * each file. Checked one after the other, so the first refusal is the one reported.
 */
export async function assertDirectoriesIsolated(
  claudeConfigDir: string,
  directories: readonly IsolatedDirectory[],
): Promise<void> {
  for (const { dir, label, isRoot } of directories) {
    await assertWorkspaceIsolated(
      { workspace: dir, claudeConfigDir, ...(isRoot === true ? { isRoot } : {}) },
      label,
    );
  }
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
