import { sql, type Kysely } from "kysely";
import { ApiError, generateToken, hashToken } from "@talkide/service-kit";
import type { DatabaseSchema } from "../db/schema.ts";
import { toRfc3339 } from "../db/timestamps.ts";
import { API_TOKEN_PREFIX } from "./tokens.ts";

/**
 * How long a new API token works unless its owner asks otherwise (`expiresInDays`) or the
 * operator sets `TALKIDE_TOKEN_LIFETIME_DAYS`: a script's token outlives a browser session,
 * but a forgotten one stops working within a quarter.
 */
export const DEFAULT_TOKEN_LIFETIME_DAYS = 90;

/** The longest lifetime anyone may ask for. */
export const MAX_TOKEN_LIFETIME_DAYS = 366;

/** `last_used_at` is written at most this often per token: a busy script costs no write a request. */
const LAST_USED_RESOLUTION = "1 minute";

/** An API token as its owner sees it: never its value, which is shown once. */
export interface ApiTokenView {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly expiresAt: string;
}

export interface IssuedApiToken {
  readonly token: ApiTokenView;
  /** `tkbe_…`: returned here and nowhere else, ever; only its sha256 is stored. */
  readonly secret: string;
}

/** Inserts a new token for `userId` (inside the caller's transaction when given one). */
export async function issueApiToken(
  db: Kysely<DatabaseSchema>,
  userId: string,
  options: { readonly name: string; readonly lifetimeDays: number },
): Promise<IssuedApiToken> {
  const secret = generateToken(API_TOKEN_PREFIX);
  const row = await db
    .insertInto("api_tokens")
    .values({
      user_id: userId,
      token_sha256: hashToken(secret),
      name: options.name,
      expires_at: sql<string>`clock_timestamp() + make_interval(days => ${options.lifetimeDays})`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { token: toView(row), secret };
}

/**
 * The user whose unexpired token this is (and the token's id), or null. Using it moves its
 * `last_used_at` on, written at most once a minute: a busy script costs no write a request.
 */
export async function findApiTokenUser(
  db: Kysely<DatabaseSchema>,
  secret: string,
): Promise<{ readonly userId: string; readonly tokenId: string } | null> {
  const row = await db
    .selectFrom("api_tokens")
    .select(["id", "user_id"])
    .where("token_sha256", "=", hashToken(secret))
    .where("expires_at", ">", sql<string>`clock_timestamp()`)
    .executeTakeFirst();
  if (row === undefined) return null;
  await db
    .updateTable("api_tokens")
    .set({ last_used_at: sql<string>`clock_timestamp()` })
    .where("id", "=", row.id)
    .where((eb) =>
      eb.or([
        eb("last_used_at", "is", null),
        eb("last_used_at", "<", sql<string>`clock_timestamp() - ${LAST_USED_RESOLUTION}::interval`),
      ]),
    )
    .execute();
  return { userId: row.user_id, tokenId: row.id };
}

/** Whether a token still exists and has not expired. */
export async function apiTokenIsLive(
  db: Kysely<DatabaseSchema>,
  tokenId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom("api_tokens")
    .select("id")
    .where("id", "=", tokenId)
    .where("expires_at", ">", sql<string>`clock_timestamp()`)
    .executeTakeFirst();
  return row !== undefined;
}

/** The user's unexpired tokens, newest first. */
export async function listApiTokens(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<ApiTokenView[]> {
  const rows = await db
    .selectFrom("api_tokens")
    .selectAll()
    .where("user_id", "=", userId)
    .where("expires_at", ">", sql<string>`clock_timestamp()`)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map(toView);
}

/** Deletes one of the user's tokens: it stops working with the next request. */
export async function revokeApiToken(
  db: Kysely<DatabaseSchema>,
  userId: string,
  tokenId: string,
): Promise<void> {
  const deleted = await db
    .deleteFrom("api_tokens")
    .where("id", "=", tokenId)
    .where("user_id", "=", userId)
    .returning("id")
    .executeTakeFirst();
  if (deleted === undefined) throw tokenNotFound();
}

export const tokenNotFound = (): ApiError =>
  new ApiError(404, "token_not_found", "You have no API token with this id.", {
    title: "No such API token",
  });

function toView(row: {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
}): ApiTokenView {
  return {
    id: row.id,
    name: row.name,
    createdAt: toRfc3339(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : toRfc3339(row.last_used_at),
    expiresAt: toRfc3339(row.expires_at),
  };
}
