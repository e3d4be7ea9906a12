/**
 * The Claude Code process of one turn: the project's kept ("warm") process when nothing its
 * next request depends on has changed, else a new ("cold") one, fresh or resuming the
 * project's session. Either way the member's message goes in as one stream-json line, so a
 * warm and a cold turn of the same state send the same request (WIRE-NOTES.md of
 * @talkide/claude-cli, issue 15).
 */
import {
  buildClaudeArgs,
  type SessionPoint,
  startupFileDigests,
  TURN_MARKER_VARIABLE,
  warmContextDigest,
} from "@talkide/claude-cli";
import type { ColdStart } from "@talkide/turn-engine";
import { type ClaudeSettings, extraClaudeArgs } from "./claude-args.ts";
import type { PreparedSpawn } from "./spawn-preparation.ts";
import type { TurnServices } from "./turn-services.ts";

/** The pool key of a project's process: one session per project. */
export function warmKey(projectId: number): string {
  return `project:${projectId}`;
}

/** The arguments every process of this release starts with, before any resume flags. */
function baseArgs(claude: ClaudeSettings, workspaceDir: string): string[] {
  return buildClaudeArgs({
    pluginDir: claude.pluginDir,
    agent: claude.agentName,
    extraArgs: extraClaudeArgs(claude, workspaceDir),
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
      ...baseArgs(claude, prepared.workspaceDir),
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
): ColdStart {
  const { claude, watchdog } = services;
  return {
    claudePath: claude.claudePath,
    cwd: workspaceDir,
    args: buildClaudeArgs({
      resumeSessionId: point?.id,
      resumeAtMessageId: point?.at ?? undefined,
      pluginDir: claude.pluginDir,
      agent: claude.agentName,
      extraArgs: extraClaudeArgs(claude, workspaceDir),
    }),
    env: claude.env(),
    markerVariable: TURN_MARKER_VARIABLE,
    ...(claude.killGraceMs === undefined ? {} : { killGraceMs: claude.killGraceMs }),
    // Its processes must not outlive this instance, however it dies.
    watchdog,
  };
}
