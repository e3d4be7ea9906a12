import { randomUUID } from "node:crypto";
import { generateToken, hashToken } from "@talkide/service-kit";
import type { DaemonDb, TokenScope } from "../db/schema.ts";

/**
 * Bearer tokens. `admin` may do everything (the CLI, operators); `intake` may only push
 * deliveries (the message service). Tokens are random 256-bit values shown once; the
 * database keeps their sha256 (service-kit's `hashToken`), so a database dump does not leak
 * usable tokens.
 */
export const TOKEN_PREFIX = "tkd_";

export interface TokenView {
  readonly id: string;
  readonly name: string;
  readonly scope: TokenScope;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

export async function createToken(
  db: DaemonDb,
  input: { readonly name: string; readonly scope: TokenScope; readonly token?: string },
): Promise<{ readonly id: string; readonly token: string }> {
  const token = input.token ?? generateToken(TOKEN_PREFIX);
  const id = randomUUID();
  await db
    .insertInto("api_tokens")
    .values({ id, name: input.name, scope: input.scope, token_hash: hashToken(token) })
    .execute();
  return { id, token };
}

/** Makes sure exactly this token exists with the admin scope (the local admin token file). */
export async function ensureAdminToken(db: DaemonDb, token: string): Promise<void> {
  await db
    .insertInto("api_tokens")
    .values({ id: randomUUID(), name: "local-admin", scope: "admin", token_hash: hashToken(token) })
    .onConflict((oc) => oc.column("token_hash").doNothing())
    .execute();
}

/**
 * Verified tokens are remembered for a few seconds: every intake request carries one, and a
 * query per request would be a noticeable part of the daemon's per-turn cost. Revoking
 * through this daemon forgets at once; a revocation written by another process sharing the
 * database takes effect within `VERIFIED_TOKEN_TTL_MS`.
 */
export const VERIFIED_TOKEN_TTL_MS = 5000;
const verified = new WeakMap<
  DaemonDb,
  Map<string, { id: string; scope: TokenScope; until: number }>
>();

export async function verifyToken(
  db: DaemonDb,
  token: string,
): Promise<{ readonly id: string; readonly scope: TokenScope } | null> {
  const hash = hashToken(token);
  let cache = verified.get(db);
  if (cache === undefined) {
    cache = new Map();
    verified.set(db, cache);
  }
  const hit = cache.get(hash);
  if (hit !== undefined && hit.until > Date.now()) return { id: hit.id, scope: hit.scope };
  const row = await db
    .selectFrom("api_tokens")
    .select(["id", "scope"])
    .where("token_hash", "=", hash)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (row === undefined) {
    cache.delete(hash);
    return null;
  }
  // Bounded: tokens are few; a flood of distinct valid tokens cannot exist.
  if (cache.size > 1000) cache.clear();
  cache.set(hash, { id: row.id, scope: row.scope, until: Date.now() + VERIFIED_TOKEN_TTL_MS });
  return row;
}

export async function listTokens(db: DaemonDb): Promise<readonly TokenView[]> {
  const rows = await db.selectFrom("api_tokens").selectAll().orderBy("created_at").execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    scope: r.scope,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  }));
}

/** Returns false when no such live token exists. */
export async function revokeToken(db: DaemonDb, id: string): Promise<boolean> {
  const result = await db
    .updateTable("api_tokens")
    .set({ revoked_at: new Date() })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  verified.delete(db);
  return result.numUpdatedRows > 0n;
}
