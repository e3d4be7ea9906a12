/**
 * Ends kept processes that can never run a turn again because their session moved on without
 * them: its next turn ran on another daemon, or it was invalidated. They would only hold
 * memory until their idle timeout; with several daemons on one database that is common.
 */
import { isAtSessionPoint, type WarmProcessPool } from "@talkide/claude-cli";
import type { Logger } from "@talkide/service-kit";
import type { DaemonDb } from "../db/schema.ts";

export async function pruneMovedSessions(db: DaemonDb, pool: WarmProcessPool): Promise<number> {
  const keys = pool.entries().map((entry) => entry.key);
  if (keys.length === 0) return 0;
  const sessions = await db
    .selectFrom("sessions")
    .select(["id", "runtime_session_id", "resume_at_message_id"])
    .where("id", "in", keys)
    .where("invalidated_at", "is", null)
    .execute();
  const points = new Map(
    sessions.flatMap((s) =>
      s.runtime_session_id === null
        ? []
        : [[s.id, { id: s.runtime_session_id, at: s.resume_at_message_id }] as const],
    ),
  );
  return pool.prune((key, fingerprint) => {
    const point = points.get(key);
    return point !== undefined && isAtSessionPoint(fingerprint, point);
  }, "session_moved");
}

/** Prunes every `everyMs` until the returned stop is called; a failed pass waits for the next. */
export function startWarmPruning(
  db: DaemonDb,
  pool: WarmProcessPool,
  logger: Logger,
  everyMs: number,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pruneMovedSessions(db, pool)
      .then((ended) => {
        if (ended > 0) logger.info({ ended }, "ended warm processes whose session moved on");
      })
      .catch((error: unknown) => {
        logger.warn({ err: error }, "could not check warm processes against their sessions");
      })
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
