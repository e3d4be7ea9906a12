/**
 * The project's agent session: which open session a turn may resume (only one pinned to the
 * current release of Mara's agent file and plugin) and how a session is ended visibly.
 */
import type { Kysely, Selectable } from "kysely";
import { sql } from "kysely";
import type { AgentSessionsTable, DatabaseSchema } from "../db/schema.ts";
import type { TurnRow } from "../domain/turns.ts";
import type { ClaudeSettings } from "./claude-args.ts";
import type { TurnEmitter } from "./turn-events.ts";
import type { TurnServices } from "./turn-services.ts";

export type SessionRow = Selectable<AgentSessionsTable>;

/** Why a turn did not continue the project's session; stored on the turn and in the event. */
type SessionResetReason = "agent_changed" | "unknown_session";

const SESSION_RESET_MESSAGES: Record<SessionResetReason, string> = {
  agent_changed:
    "Mara's agent file or plugin changed since this project's conversation started; this turn starts a new conversation with the current release. Earlier messages are not part of it.",
  unknown_session:
    "Claude Code no longer knows this project's conversation; this turn starts a new one. Earlier messages are not part of it.",
};

/** The project's session that has not ended, if any. */
export function openSession(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<SessionRow | undefined> {
  return db
    .selectFrom("agent_sessions")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("ended_at", "is", null)
    .executeTakeFirst();
}

export function isPinnedToCurrentRelease(session: SessionRow, claude: ClaudeSettings): boolean {
  const { pinned } = claude;
  return (
    session.agent_sha256 === pinned.agentSha256 && session.plugin_sha256 === pinned.pluginSha256
  );
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
    await trx
      .updateTable("agent_sessions")
      .set({ ended_at: sql<string>`clock_timestamp()` })
      .where("id", "=", session.id)
      .execute();
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
