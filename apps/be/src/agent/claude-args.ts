import type { SandboxPolicy } from "@talkide/claude-cli";
import type { MaraPluginDigest } from "@talkide/prompts";

export interface ClaudeSettings {
  readonly claudePath: string;
  /** Called before every spawn: the complete environment of the child. */
  readonly env: () => Record<string, string>;
  readonly pluginDir: string;
  readonly agentName: string;
  /** What the plugin directory holds: a session started with other bytes is not resumed. */
  readonly pinned: MaraPluginDigest;
  /** The CLI's `CLAUDE_CONFIG_DIR`: checked before every spawn, with the workspace's ancestors. */
  readonly claudeConfigDir: string;
  /**
   * Instruction files found in a project's workspace before a spawn are moved to
   * `<quarantineDir>/project-<id>/<when>/`, where the project's owners see them.
   */
  readonly quarantineDir?: string;
  readonly permissionMode: "default" | "acceptEdits" | "plan";
  readonly allowedTools: readonly string[];
  /**
   * Set when a tool rule lets the agent run code: every process then runs with Claude Code's
   * sandbox (`--settings`, see `sandboxSettings`). Null: no such rule, no sandbox needed.
   */
  readonly sandbox?: SandboxPolicy | null;
  readonly timeoutMs: number;
  readonly killGraceMs?: number;
}

/**
 * Claude Code's own agents (as listed by the pinned CLI's init event). Mara delegates only to
 * the team agents of her plugin, which are started without CLAUDE.md; measured at the wire,
 * `general-purpose`, `claude` and `statusline-setup` receive the whole CLAUDE.md (roster and
 * briefings) when called, and `Explore` and `Plan` are not in her delegation table. A
 * permission rule denies them all, so a delegation to one fails as a tool error instead of
 * handing the roster to an agent the seed says must not see it.
 */
const BUILT_IN_AGENTS_DENIED = [
  "Agent(general-purpose)",
  "Agent(claude)",
  "Agent(statusline-setup)",
  "Agent(Explore)",
  "Agent(Plan)",
] as const;

/**
 * Instruction files are the backend's: the agent may not create or change any file Claude
 * Code would load as instructions or settings, anywhere in its workspace (issue 49). Edit rules
 * cover every built-in tool that writes files; what a shell command writes is moved out of the
 * workspace before the next spawn (agent/quarantine.ts) and kept from it by the sandbox.
 */
const INSTRUCTION_FILES_DENIED = [
  "Edit(**/CLAUDE.md)",
  "Edit(**/CLAUDE.local.md)",
  "Edit(**/AGENTS.md)",
  "Edit(**/.claude/**)",
  "Edit(**/.mcp.json)",
] as const;

/** What Mara may never use: the built-in agents, and tools on instruction files. */
export const MARA_DISALLOWED_TOOLS: readonly string[] = [
  ...BUILT_IN_AGENTS_DENIED,
  ...INSTRUCTION_FILES_DENIED,
];
