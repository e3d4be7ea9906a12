/**
 * Ends kept processes that can never run a turn again because the project's session moved on
 * without them: its next turn ran on another instance (or the session ended). They would
 * only hold memory until their idle timeout; on several instances that is the usual case.
 */
import { isAtSessionPoint, type WarmProcessPool } from "@talkide/claude-cli";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { DatabaseSchema } from "../db/schema.ts";

const KEY = /^project:(\d+)$/;

export async function pruneMovedSessions(
  db: Kysely<DatabaseSchema>,
  pool: WarmProcessPool,
): Promise<number> {
  const kept = pool.entries();
  const projectIds = kept
    .map(({ key }) => KEY.exec(key)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number);
  if (projectIds.length === 0) return 0;
  const sessions = await db
    .selectFrom("agent_sessions")
    .select(["project_id", "claude_session_id", "resume_at_message_id"])
    .where("project_id", "in", projectIds)
    .where("ended_at", "is", null)
    .execute();
  const points = new Map(
    sessions.map((s) => [
      `project:${s.project_id}`,
      { id: s.claude_session_id, at: s.resume_at_message_id },
    ]),
  );
  return pool.prune((key, fingerprint) => {
    const point = points.get(key);
    return point !== undefined && isAtSessionPoint(fingerprint, point);
  }, "session_moved");
}

/** Prunes every `everyMs` until the returned stop is called; a failed pass waits for the next. */
export function startWarmPruning(
  db: Kysely<DatabaseSchema>,
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
