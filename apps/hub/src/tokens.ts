import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { HubDb, MemberRow } from "./schema.ts";

/**
 * Member tokens of the hub: long-lived, shown once, the database keeps only their sha256.
 * People get one from `talkide-hub member add --human` (or `talkide-hub token`); an agent's
 * turn uses its daemon's turn credential instead (`turn-credentials.ts`), so nothing an
 * agent leaves behind can speak for it after the turn.
 */
export const HUB_TOKEN_PREFIX = "thk_";

/** sha256 hex of a token: what the hub stores and looks up. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export async function issueMemberToken(db: HubDb, memberId: string): Promise<string> {
  const token = HUB_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  await db
    .insertInto("hub_tokens")
    .values({ id: randomUUID(), member_id: memberId, token_hash: hashToken(token) })
    .execute();
  return token;
}

/** The member a live hub token belongs to. */
export async function verifyHubToken(db: HubDb, token: string): Promise<MemberRow | undefined> {
  return db
    .selectFrom("hub_tokens")
    .innerJoin("hub_members", "hub_members.id", "hub_tokens.member_id")
    .selectAll("hub_members")
    .where("hub_tokens.token_hash", "=", hashToken(token))
    .where("hub_tokens.revoked_at", "is", null)
    .executeTakeFirst();
}
