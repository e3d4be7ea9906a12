import {
  assertWorkspaceIsolated,
  ensureWorkspaceRepository,
  findWorkspaceInstructionFiles,
  HERMETIC_CLAUDE_ENV,
} from "@talkide/claude-cli";

/**
 * Contract section 6 for the daemon: an agent's workspace stands alone. Before every turn its
 * ancestors, the CLI's config dir and the managed policy dir hold no instruction source (else
 * `WorkspaceIsolationError` and nothing is spawned), the workspace is its own git repository,
 * and instruction files inside it (the daemon writes none there, so every one is the agent's
 * or the operator's) are returned to be reported.
 */
export async function guardAgentWorkspace(
  workspaceDir: string,
  claudeConfigDir: string,
): Promise<readonly string[]> {
  await assertWorkspaceIsolated({ workspace: workspaceDir, claudeConfigDir });
  await ensureWorkspaceRepository(workspaceDir);
  return findWorkspaceInstructionFiles(workspaceDir);
}

/** The start check: every registered agent's workspace. */
export async function assertAgentWorkspacesIsolated(
  workspaces: readonly string[],
  claudeConfigDir: string,
): Promise<void> {
  for (const workspace of workspaces) {
    await assertWorkspaceIsolated(
      { workspace, claudeConfigDir },
      `The agent workspace ${workspace}`,
    );
  }
}

/**
 * What every turn's environment gets last: the daemon's own Claude config dir (never the
 * operator's `~/.claude`, whose CLAUDE.md, rules and settings would reach every agent) and the
 * switches that keep auto memory and the git status block out of the context.
 */
export function hermeticClaudeEnv(claudeConfigDir: string): Record<string, string> {
  return { CLAUDE_CONFIG_DIR: claudeConfigDir, ...HERMETIC_CLAUDE_ENV };
}
