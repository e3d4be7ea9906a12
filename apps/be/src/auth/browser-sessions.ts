import { sql, type Kysely } from "kysely";
import { ApiError, generateToken, hashToken } from "@talkide/service-kit";
import type { DatabaseSchema } from "../db/schema.ts";
import { toRfc3339 } from "../db/timestamps.ts";

/**
 * A browser's sign-in: the console never holds a token. Signing in (a one-time code, or an API
 * token pasted once) starts a session whose secret travels only in an HttpOnly cookie, so every
 * tab of that browser shares it and no script can read it; only its sha256 is stored.
 */
export const SESSION_COOKIE = "talkide_session";
const SESSION_PREFIX = "tkss_";

/** A session unused for this long has ended by itself (TALKIDE_SESSION_IDLE_HOURS). */
export const DEFAULT_SESSION_IDLE_HOURS = 168;

/** `last_used_at` is written at most this often per session. */
const LAST_USED_RESOLUTION = "1 minute";

export interface BrowserSessionView {
  readonly id: string;
  /** The browser's own description at sign-in, so a person can tell their sessions apart. */
  readonly userAgent: string | null;
  readonly createdAt: string;
  readonly lastUsedAt: string;
  /** When it ends unless used before: the last use plus the idle limit. */
  readonly expiresAt: string;
  /** The session this request came with. */
  readonly current: boolean;
}

export async function startBrowserSession(
  db: Kysely<DatabaseSchema>,
  userId: string,
  userAgent: string | undefined,
): Promise<string> {
  const secret = generateToken(SESSION_PREFIX);
  await db
    .insertInto("browser_sessions")
    .values({
      user_id: userId,
      secret_sha256: hashToken(secret),
      user_agent: userAgent === undefined ? null : userAgent.slice(0, 200),
    })
    .execute();
  return secret;
}

/**
 * The live session this cookie carries (its user and id), or null: unknown, ended, or idle past
 * the limit. Using it moves its idle limit on.
 */
export async function findBrowserSession(
  db: Kysely<DatabaseSchema>,
  secret: string,
  idleHours: number,
): Promise<{ readonly userId: string; readonly sessionId: string } | null> {
  const live = db
    .selectFrom("browser_sessions")
    .select(["id", "user_id", "last_used_at"])
    .where("secret_sha256", "=", hashToken(secret))
    .where("ended_at", "is", null)
    .where(
      "last_used_at",
      ">",
      sql<string>`clock_timestamp() - make_interval(hours => ${idleHours})`,
    );
  const row = await live.executeTakeFirst();
  if (row === undefined) return null;
  await db
    .updateTable("browser_sessions")
    .set({ last_used_at: sql<string>`clock_timestamp()` })
    .where("id", "=", row.id)
    .where("last_used_at", "<", sql<string>`clock_timestamp() - ${LAST_USED_RESOLUTION}::interval`)
    .execute();
  return { userId: row.user_id, sessionId: row.id };
}

/** The user's live sessions, most recently used first. */
export async function listBrowserSessions(
  db: Kysely<DatabaseSchema>,
  userId: string,
  idleHours: number,
  currentId: string | null,
): Promise<BrowserSessionView[]> {
  const rows = await db
    .selectFrom("browser_sessions")
    .select([
      "id",
      "user_agent",
      "created_at",
      "last_used_at",
      sql<string>`last_used_at + make_interval(hours => ${idleHours})`.as("expires_at"),
    ])
    .where("user_id", "=", userId)
    .where("ended_at", "is", null)
    .where(
      "last_used_at",
      ">",
      sql<string>`clock_timestamp() - make_interval(hours => ${idleHours})`,
    )
    .orderBy("last_used_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    userAgent: row.user_agent,
    createdAt: toRfc3339(row.created_at),
    lastUsedAt: toRfc3339(row.last_used_at),
    expiresAt: toRfc3339(row.expires_at),
    current: row.id === currentId,
  }));
}

/** Ends one of the user's sessions on the server: its cookie opens nothing from now on. */
export async function endBrowserSession(
  db: Kysely<DatabaseSchema>,
  userId: string,
  sessionId: string,
): Promise<void> {
  const ended = await db
    .updateTable("browser_sessions")
    .set({ ended_at: sql<string>`clock_timestamp()` })
    .where("id", "=", sessionId)
    .where("user_id", "=", userId)
    .where("ended_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  if (ended === undefined) throw sessionNotFound();
}

export const sessionNotFound = (): ApiError =>
  new ApiError(404, "session_not_found", "You have no open session with this id.", {
    title: "No such session",
  });

/** Whether a session is still live: open event streams end when it is not. */
export async function browserSessionIsLive(
  db: Kysely<DatabaseSchema>,
  sessionId: string,
  idleHours: number,
): Promise<boolean> {
  const row = await db
    .selectFrom("browser_sessions")
    .select("id")
    .where("id", "=", sessionId)
    .where("ended_at", "is", null)
    .where(
      "last_used_at",
      ">",
      sql<string>`clock_timestamp() - make_interval(hours => ${idleHours})`,
    )
    .executeTakeFirst();
  return row !== undefined;
}
