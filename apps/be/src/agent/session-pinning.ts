/**
 * The project's agent session, kept by the turn engine (`engine_sessions`): which open session
 * a turn may resume (only one pinned to the current release of Mara's agent file and plugin)
 * and how a session is ended visibly.
 */
import type { MaraPluginDigest } from "@talkide/prompts";
import {
  endSession,
  engineDb,
  openSession as openEngineSession,
  type SessionRow,
  type SessionScope,
} from "@talkide/turn-engine";
import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";
import type { TurnRow } from "../domain/turns.ts";
import { projectKey } from "./project-key.ts";
import type { TurnEmitter } from "./turn-events.ts";
import type { TurnServices } from "./turn-services.ts";

export type { SessionRow };

/** Why a turn did not continue the project's session; stored on the turn and in the event. */
type SessionResetReason = "agent_changed" | "unknown_session";

const SESSION_RESET_MESSAGES: Record<SessionResetReason, string> = {
  agent_changed:
    "Mara's agent file or plugin changed since this project's conversation started; this turn starts a new conversation with the current release. Earlier messages are not part of it.",
  unknown_session:
    "Claude Code no longer knows this project's conversation; this turn starts a new one. Earlier messages are not part of it.",
};

/** A project's sessions in the engine: one open at a time, keyed as its warm process is. */
export function projectScope(projectId: number): SessionScope {
  return { scope: projectKey(projectId), owner: projectKey(projectId) };
}

/** The release a session is pinned to (migration 0017 wrote the same for earlier sessions). */
export function releasePin(pinned: MaraPluginDigest): string {
  return `${pinned.agentSha256}:${pinned.pluginSha256}`;
}

/** The project's session that has not ended, if any. */
export function openSession(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<SessionRow | null> {
  return openEngineSession(engineDb(db), projectKey(projectId));
}

/** Ends the project's session, visibly: in the turn record and as a `session.reset` event. */
export async function resetSession(
  services: TurnServices,
  turn: TurnRow,
  live: TurnEmitter,
  session: SessionRow,
  reason: SessionResetReason,
): Promise<void> {
  await services.db.transaction().execute(async (trx) => {
    await endSession(engineDb(trx), session.id, reason);
    await trx
      .updateTable("turns")
      .set({ session_reset: reason })
      .where("id", "=", turn.id)
      .execute();
  });
  services.logger.info(
    { turnId: turn.id, sessionId: session.claude_session_id, reason },
    "session reset",
  );
  live.emit("session.reset", {
    reason,
    previousSessionId: session.claude_session_id,
    message: SESSION_RESET_MESSAGES[reason],
  });
}
