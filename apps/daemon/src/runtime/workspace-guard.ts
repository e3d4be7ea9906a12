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
 *
 * `inspected` is `inspectAgentWorkspace` of the same workspace when the caller started it
 * already (the scheduler does, while it claims the delivery).
 */
export async function guardAgentWorkspace(
  workspaceDir: string,
  claudeConfigDir: string,
  inspected: Promise<readonly string[]> = inspectAgentWorkspace(workspaceDir, claudeConfigDir),
): Promise<readonly string[]> {
  const files = await inspected;
  // Made only for a workspace that passed the isolation check.
  await ensureWorkspaceRepository(workspaceDir);
  return files;
}

/**
 * The part of the check before a turn that only reads: the isolation check (it throws
 * `WorkspaceIsolationError`) and the instruction files inside the workspace. Both run side by
 * side (this is on every turn's path); the isolation check's refusal wins. The workspace's
 * `.git`, which `guardAgentWorkspace` may create afterwards, is never among the files.
 */
export async function inspectAgentWorkspace(
  workspaceDir: string,
  claudeConfigDir: string,
): Promise<readonly string[]> {
  const [isolated, files] = await Promise.allSettled([
    assertWorkspaceIsolated({ workspace: workspaceDir, claudeConfigDir }),
    findWorkspaceInstructionFiles(workspaceDir),
  ]);
  if (isolated.status === "rejected") throw asError(isolated.reason);
  if (files.status === "rejected") throw asError(files.reason);
  return files.value;
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
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
