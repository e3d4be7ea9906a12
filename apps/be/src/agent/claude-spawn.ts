/**
 * The Claude Code process of one turn: the project's kept ("warm") process when nothing its
 * next request depends on has changed, else a new ("cold") one, fresh or resuming the
 * project's session. Either way the member's message goes in as one stream-json line, so a
 * warm and a cold turn of the same state send the same request (WIRE-NOTES.md of
 * @talkide/claude-cli, issue 15).
 */
import {
  launchArgs,
  type SessionPoint,
  startupFileDigests,
  TURN_MARKER_VARIABLE,
  warmContextDigest,
} from "@talkide/claude-cli";
import type { ColdStart } from "@talkide/turn-engine";
import { type ClaudeSettings, MARA_DISALLOWED_TOOLS } from "./claude-args.ts";
import type { PreparedSpawn } from "./spawn-preparation.ts";
import type { TurnServices } from "./turn-services.ts";

/**
 * The arguments of a process in `workspaceDir` (resuming at `point`; null: a new session, and
 * the startup digest's arguments): Mara's plugin agent, the configured permission mode and
 * tool rules (print mode cannot ask, so anything not permitted up front is denied), and the
 * sandbox when a rule runs code.
 */
function claudeArgs(
  claude: ClaudeSettings,
  workspaceDir: string,
  point: SessionPoint | null,
): string[] {
  return launchArgs({
    cwd: workspaceDir,
    systemPrompt: { pluginDir: claude.pluginDir, agent: claude.agentName },
    resume: point,
    permissionMode: claude.permissionMode,
    disallowedTools: MARA_DISALLOWED_TOOLS,
    allowedTools: claude.allowedTools,
    sandbox: claude.sandbox ?? null,
  });
}

/**
 * A digest of what a process reads when it starts, besides the session: arguments, environment,
 * Mara's release, the rendered files and the workspace's own instruction files.
 */
export async function startupDigest(
  claude: ClaudeSettings,
  prepared: PreparedSpawn,
  /**
   * Where instruction files were moved before this turn: a process kept from before may have
   * read them (Claude Code reloads some of them while it runs), so it is never reused then.
   */
  movedTo: string | null = null,
): Promise<string> {
  const startupFiles = await startupFileDigests(prepared.workspaceDir, prepared.instructionFiles);
  return warmContextDigest({
    args: [
      ...claudeArgs(claude, prepared.workspaceDir, null),
      `agent ${claude.pinned.agentSha256}`,
      `plugin ${claude.pinned.pluginSha256}`,
      `cwd ${prepared.workspaceDir}`,
      ...(movedTo === null ? [] : [`moved ${movedTo}`]),
    ],
    env: claude.env(),
    files: [
      ...prepared.rendered,
      ...startupFiles.map((f) => ({ ...f, path: `workspace:${f.path}` })),
    ],
  });
}

/**
 * How a new process of the turn starts: resuming the session at `point`, its last successful
 * turn, when given (whatever a failed turn left in Claude Code's transcript after that message
 * is not part of the conversation), else a new session.
 */
export function coldStart(
  services: TurnServices,
  workspaceDir: string,
  /** Where the turn resumes (the turn engine's choice); null: a new session. */
  point: SessionPoint | null,
  /** The project's key at the gateway: each new process gets a token of its own for it. */
  projectKey: string,
): ColdStart {
  const { claude, watchdog, gateway } = services;
  return {
    claudePath: claude.claudePath,
    cwd: workspaceDir,
    args: claudeArgs(claude, workspaceDir, point),
    env: claude.env(),
    markerVariable: TURN_MARKER_VARIABLE,
    credential: () => gateway.issue({ projectKey }),
    ...(claude.killGraceMs === undefined ? {} : { killGraceMs: claude.killGraceMs }),
    // Its processes must not outlive this instance, however it dies.
    watchdog,
  };
}
