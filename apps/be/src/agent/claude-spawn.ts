/**
 * The Claude Code process of one turn: the project's kept ("warm") process when nothing its
 * next request depends on has changed, else a new ("cold") one, fresh or resuming the
 * project's session. Either way the member's message goes in as one stream-json line, so a
 * warm and a cold turn of the same state send the same request (WIRE-NOTES.md of
 * @talkide/claude-cli, issue 15).
 */
import {
  buildClaudeArgs,
  type ColdReason,
  type SessionPoint,
  startupFileDigests,
  WarmClaudeProcess,
  warmContextDigest,
  warmFingerprint,
} from "@talkide/claude-cli";
import type { TurnRow } from "../domain/turns.ts";
import { type ClaudeSettings, extraClaudeArgs, TURN_ID_VARIABLE } from "./claude-args.ts";
import type { SessionRow } from "./session-pinning.ts";
import { materialiseSessionTranscript } from "./session-transcripts.ts";
import type { PreparedSpawn } from "./spawn-preparation.ts";
import type { TurnServices } from "./turn-services.ts";

export interface TurnProcess {
  readonly process: WarmClaudeProcess;
  readonly kind: "warm" | "cold";
  /** Why the turn could not run warm; null when it did. */
  readonly coldReason: ColdReason | null;
  /** The `TALKIDE_TURN_ID` its processes carry: the id of the turn that started it. */
  readonly marker: string;
}

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
 * The process this turn runs in: the kept one when its fingerprint matches the session's
 * current point and `digest`, else a new one started now (whose processes the watchdog
 * tracks until it exits).
 */
export async function takeProcess(
  services: TurnServices,
  turn: TurnRow,
  workspaceDir: string,
  session: SessionRow | undefined,
  digest: string,
): Promise<TurnProcess> {
  const checkout = services.warm.take(
    warmKey(turn.project_id),
    session === undefined ? null : sessionPoint(session),
    digest,
  );
  if (checkout.process !== null) {
    return {
      process: checkout.process,
      kind: "warm",
      coldReason: null,
      marker: checkout.process.tag ?? turn.id,
    };
  }
  return {
    ...(await startCold(services, turn, workspaceDir, session)),
    coldReason: checkout.reason,
  };
}

/** A new process for the turn, resuming `session` at its last successful turn when given. */
export async function startCold(
  services: TurnServices,
  turn: TurnRow,
  workspaceDir: string,
  session: SessionRow | undefined,
): Promise<Omit<TurnProcess, "coldReason"> & { coldReason: null }> {
  const { claude, watchdog } = services;
  // One process per session: one being ended (its turn failed, the context changed) has
  // exited before the next starts, so the two never touch the session's files at once.
  await services.warm.settled(warmKey(turn.project_id));
  // Whichever instance ran the session's last turn, its stored transcript is what resumes. It
  // must be on disk before the process starts: the CLI reads it at start.
  if (session !== undefined)
    await materialiseSessionTranscript(services.db, claude.claudeConfigDir, session);
  const marker = turn.id;
  const process = await WarmClaudeProcess.start({
    claudePath: claude.claudePath,
    cwd: workspaceDir,
    // The session continues from its last successful turn: whatever a failed turn left in
    // Claude Code's transcript after that message is not part of the conversation.
    args: buildClaudeArgs({
      resumeSessionId: session?.claude_session_id,
      resumeAtMessageId: session?.resume_at_message_id ?? undefined,
      pluginDir: claude.pluginDir,
      agent: claude.agentName,
      extraArgs: extraClaudeArgs(claude),
    }),
    env: { ...claude.env(), [TURN_ID_VARIABLE]: marker },
    ...(claude.killGraceMs === undefined ? {} : { killGraceMs: claude.killGraceMs }),
    tag: marker,
    // Its processes must not outlive this instance, however it dies.
    watchdog,
  });
  return { process, kind: "cold", coldReason: null, marker };
}

/**
 * After the turn: a successful one leaves its process kept for the project's next turn, at the
 * session point it reached; a failed one has ended its process already, and the next turn says
 * why it starts cold.
 */
export function afterTurn(
  services: TurnServices,
  turn: TurnRow,
  taken: TurnProcess,
  outcome: { ok: true; sessionId: string; lastMessageId: string | null } | { ok: false },
  digest: string,
): void {
  const key = warmKey(turn.project_id);
  if (!outcome.ok) {
    services.warm.retire(key, taken.process, "previous_turn_failed");
    return;
  }
  services.warm.keep(
    key,
    warmFingerprint({ id: outcome.sessionId, at: outcome.lastMessageId }, digest),
    taken.process,
  );
}
