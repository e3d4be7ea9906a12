import { randomUUID } from "node:crypto";
import type { DaemonDb, SessionInvalidationReason, SessionRow } from "../db/schema.ts";

export async function createSession(
  db: DaemonDb,
  input: {
    readonly agentId: string;
    readonly conversationId: string;
    readonly runtime: string;
    readonly standingPromptVersion: string;
  },
): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto("sessions")
    .values({
      id,
      agent_id: input.agentId,
      conversation_id: input.conversationId,
      runtime: input.runtime,
      runtime_session_id: null,
      resume_at_message_id: null,
      standing_prompt_version: input.standingPromptVersion,
      cumulative_cost_usd: null,
      invalidated_at: null,
      invalidated_reason: null,
      updated_at: new Date(),
    })
    .execute();
  return id;
}

/**
 * Pins a live session that has not begun (no turn of it succeeded: no runtime session) to the
 * standing prompt version its first runtime session will start with. A begun one is left as
 * it is: its runtime session keeps the prompt it started with.
 */
export async function repinSession(
  db: DaemonDb,
  sessionId: string,
  standingPromptVersion: string,
): Promise<void> {
  await db
    .updateTable("sessions")
    .set({ standing_prompt_version: standingPromptVersion, updated_at: new Date() })
    .where("id", "=", sessionId)
    .where("runtime_session_id", "is", null)
    .where("invalidated_at", "is", null)
    .execute();
}

/** Returns false when the session was already invalidated (nothing changed). */
export async function invalidateSession(
  db: DaemonDb,
  sessionId: string,
  reason: SessionInvalidationReason,
): Promise<boolean> {
  const r = await db
    .updateTable("sessions")
    .set({ invalidated_at: new Date(), invalidated_reason: reason, updated_at: new Date() })
    .where("id", "=", sessionId)
    .where("invalidated_at", "is", null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Why the conversation's last ended session ended; null when it never had one. */
export async function lastEndedSessionReason(
  db: DaemonDb,
  agentId: string,
  conversationId: string,
): Promise<SessionInvalidationReason | null> {
  const row = await db
    .selectFrom("sessions")
    .select("invalidated_reason")
    .where("agent_id", "=", agentId)
    .where("conversation_id", "=", conversationId)
    .where("invalidated_at", "is not", null)
    .orderBy("invalidated_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.invalidated_reason ?? null;
}

export interface SessionFilter {
  readonly agentId?: string | undefined;
  readonly conversationId?: string | undefined;
  /** Only live sessions (the default lists invalidated ones too). */
  readonly liveOnly?: boolean | undefined;
  readonly limit: number;
}

/** Newest first. */
export async function listSessions(
  db: DaemonDb,
  filter: SessionFilter,
): Promise<readonly SessionRow[]> {
  let q = db.selectFrom("sessions").selectAll();
  if (filter.agentId !== undefined) q = q.where("agent_id", "=", filter.agentId);
  if (filter.conversationId !== undefined)
    q = q.where("conversation_id", "=", filter.conversationId);
  if (filter.liveOnly === true) q = q.where("invalidated_at", "is", null);
  return q.orderBy("created_at", "desc").orderBy("id").limit(filter.limit).execute();
}
