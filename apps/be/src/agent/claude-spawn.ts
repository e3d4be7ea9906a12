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
  warmContextDigest,
} from "@talkide/claude-cli";
import {
  keepOrRetire,
  materialiseTranscript,
  startColdProcess,
  takeProcess as takeEngineProcess,
  type ProcessRequest,
  type TakenProcess,
  type TurnEnd,
} from "@talkide/turn-engine";
import type { TurnRow } from "../domain/turns.ts";
import { type ClaudeSettings, extraClaudeArgs, TURN_ID_VARIABLE } from "./claude-args.ts";
import type { SessionRow } from "./session-pinning.ts";
import { loadSessionTranscript } from "./session-transcripts.ts";
import type { PreparedSpawn } from "./spawn-preparation.ts";
import type { TurnServices } from "./turn-services.ts";

/** The turn's process, warm or cold, and the marker its processes carry. */
export type TurnProcess = TakenProcess;

/** The pool key of a project's process: one session per project. */
export function warmKey(projectId: number): string {
  return `project:${projectId}`;
}

/** The arguments every process of this release starts with, before any resume flags. */
function baseArgs(claude: ClaudeSettings): string[] {
  return buildClaudeArgs({
    pluginDir: claude.pluginDir,
    agent: claude.agentName,
    extraArgs: extraClaudeArgs(claude),
  });
}

/**
 * A digest of what a process reads when it starts, besides the session: arguments, environment,
 * Mara's release, the rendered files and the workspace's own instruction files.
 */
export async function startupDigest(
  claude: ClaudeSettings,
  prepared: PreparedSpawn,
): Promise<string> {
  const startupFiles = await startupFileDigests(prepared.workspaceDir, prepared.instructionFiles);
  return warmContextDigest({
    args: [
      ...baseArgs(claude),
      `agent ${claude.pinned.agentSha256}`,
      `plugin ${claude.pinned.pluginSha256}`,
      `cwd ${prepared.workspaceDir}`,
    ],
    env: claude.env(),
    files: [
      ...prepared.rendered,
      ...startupFiles.map((f) => ({ ...f, path: `workspace:${f.path}` })),
    ],
  });
}

/** Where a session stands, as a warm fingerprint names it. */
function sessionPoint(session: SessionRow): SessionPoint {
  return { id: session.claude_session_id, at: session.resume_at_message_id };
}

/**
 * The turn's process request for the engine's process stages: how a new process starts
 * (resuming `session` at its last successful turn when given: whatever a failed turn left in
 * Claude Code's transcript after that message is not part of the conversation).
 */
function processRequest(
  services: TurnServices,
  turn: TurnRow,
  workspaceDir: string,
  session: SessionRow | undefined,
): Omit<ProcessRequest, "digest"> {
  const { claude, watchdog } = services;
  return {
    key: warmKey(turn.project_id),
    point: session === undefined ? null : sessionPoint(session),
    turnId: turn.id,
    cold: {
      claudePath: claude.claudePath,
      cwd: workspaceDir,
      args: buildClaudeArgs({
        resumeSessionId: session?.claude_session_id,
        resumeAtMessageId: session?.resume_at_message_id ?? undefined,
        pluginDir: claude.pluginDir,
        agent: claude.agentName,
        extraArgs: extraClaudeArgs(claude),
      }),
      env: claude.env(),
      markerVariable: TURN_ID_VARIABLE,
      ...(claude.killGraceMs === undefined ? {} : { killGraceMs: claude.killGraceMs }),
      // Its processes must not outlive this instance, however it dies.
      watchdog,
    },
    beforeColdResume: async () => {
      if (session === undefined) return;
      const store = { loadTranscript: (id: string) => loadSessionTranscript(services.db, id) };
      await materialiseTranscript(store, claude.claudeConfigDir, session.id);
    },
  };
}

/** The process this turn runs in (`takeProcess` of @talkide/turn-engine). */
export function takeProcess(
  services: TurnServices,
  turn: TurnRow,
  workspaceDir: string,
  session: SessionRow | undefined,
  digest: string,
): Promise<TurnProcess> {
  return takeEngineProcess(services.warm, {
    ...processRequest(services, turn, workspaceDir, session),
    digest,
  });
}

/** A new process for the turn, resuming `session` at its last successful turn when given. */
export function startCold(
  services: TurnServices,
  turn: TurnRow,
  workspaceDir: string,
  session: SessionRow | undefined,
): Promise<TurnProcess> {
  return startColdProcess(services.warm, processRequest(services, turn, workspaceDir, session));
}

/** After the turn: its process kept at the session point it reached, or retired. */
export function afterTurn(
  services: TurnServices,
  turn: TurnRow,
  taken: TurnProcess,
  end: TurnEnd,
  digest: string,
): void {
  keepOrRetire(services.warm, warmKey(turn.project_id), taken, end, digest);
}
