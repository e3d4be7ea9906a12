/**
 * Where each kept project's session stands now, for `WarmProcessPool#pruneMoved`: a kept
 * process whose session moved on (the project's next turn ran on another instance, or the
 * session ended) is ended instead of waiting out its idle timeout.
 */
import type { SessionPoints } from "@talkide/claude-cli";
import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";
import { warmKey } from "./claude-spawn.ts";

const KEY = /^project:(\d+)$/;

export function projectSessionPoints(
  db: Kysely<DatabaseSchema>,
): (keys: readonly string[]) => Promise<SessionPoints> {
  return async (keys) => {
    const projectIds = keys.flatMap((key) => {
      const id = KEY.exec(key)?.[1];
      return id === undefined ? [] : [Number(id)];
    });
    if (projectIds.length === 0) return new Map();
    const sessions = await db
      .selectFrom("agent_sessions")
      .select(["project_id", "claude_session_id", "resume_at_message_id"])
      .where("project_id", "in", projectIds)
      .where("ended_at", "is", null)
      .execute();
    return new Map(
      sessions.map((s) => [
        warmKey(s.project_id),
        { id: s.claude_session_id, at: s.resume_at_message_id },
      ]),
    );
  };
}
