import {
  assertWorkspaceIsolated,
  ensureWorkspaceRepository,
  findWorkspaceInstructionFiles,
} from "@talkide/claude-cli";
import { ACTIVE_WRITER_PATH } from "../context/prepare.ts";

/** Files of the workspace that the backend writes itself: not reported as the agent's. */
const OURS = ["CLAUDE.md", ACTIVE_WRITER_PATH];

export interface GuardedWorkspace {
  /** Instruction files inside the workspace that the backend did not write (relative paths). */
  readonly instructionFiles: readonly string[];
  /** True when this spawn made the workspace a git repository. */
  readonly repositoryCreated: boolean;
}

/**
 * Runs before every spawn (contract section 6): the workspace's ancestors, the CLI's config
 * dir and the managed policy dir hold no instruction source we did not render (else
 * `WorkspaceIsolationError`, and nothing is spawned); the workspace is its own git repository;
 * and the instruction files an agent may have written inside it are listed, to be reported.
 */
export async function guardWorkspace(
  workspaceDir: string,
  claudeConfigDir: string,
): Promise<GuardedWorkspace> {
  // Both only read, and each walks its own directories: side by side. A breach still fails
  // the check before anything is created in the workspace.
  const [, instructionFiles] = await Promise.all([
    assertWorkspaceIsolated({ workspace: workspaceDir, claudeConfigDir }),
    findWorkspaceInstructionFiles(workspaceDir, OURS),
  ]);
  const repositoryCreated = await ensureWorkspaceRepository(workspaceDir);
  return { instructionFiles, repositoryCreated };
}

/**
 * The start check, first part: the directory that holds the workspaces, and so every ancestor
 * of each new workspace, plus the config and managed dirs. A service that cannot guarantee
 * isolation does not start; the error names each file.
 */
export async function assertWorkspacesRootIsolated(
  workspacesDir: string,
  claudeConfigDir: string,
): Promise<void> {
  await assertWorkspaceIsolated(
    { workspace: workspacesDir, isRoot: true, claudeConfigDir },
    `The workspaces directory ${workspacesDir} (TALKIDE_WORKSPACES_DIR)`,
  );
}

/** The start check, second part: every existing project's workspace (they may lie elsewhere). */
export async function assertWorkspacesIsolated(options: {
  readonly existingWorkspaces: readonly string[];
  readonly claudeConfigDir: string;
}): Promise<void> {
  for (const workspace of options.existingWorkspaces) {
    await assertWorkspaceIsolated(
      { workspace, claudeConfigDir: options.claudeConfigDir },
      `The project workspace ${workspace}`,
    );
  }
}
