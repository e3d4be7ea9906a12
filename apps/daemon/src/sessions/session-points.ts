/**
 * Where each kept conversation's session stands now, for `WarmProcessPool#pruneMoved`: a kept
 * process whose session moved on (its next turn ran on another daemon, or it was invalidated)
 * is ended instead of waiting out its idle timeout. Pool keys are the daemon's session ids.
 */
import type { SessionPoints } from "@talkide/claude-cli";
import type { DaemonDb } from "../db/schema.ts";

export function daemonSessionPoints(
  db: DaemonDb,
): (keys: readonly string[]) => Promise<SessionPoints> {
  return async (keys) => {
    const sessions = await db
      .selectFrom("sessions")
      .select(["id", "runtime_session_id", "resume_at_message_id"])
      .where("id", "in", [...keys])
      .where("invalidated_at", "is", null)
      .execute();
    return new Map(
      sessions.flatMap((s) =>
        s.runtime_session_id === null
          ? []
          : [[s.id, { id: s.runtime_session_id, at: s.resume_at_message_id }] as const],
      ),
    );
  };
}
