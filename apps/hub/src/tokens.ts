import { randomUUID } from "node:crypto";
import { generateToken, hashToken } from "@talkide/service-kit";
import type { HubDb, MemberRow } from "./schema.ts";

/**
 * Member tokens of the hub: long-lived, shown once, the database keeps only their sha256.
 * People get one from `talkide-hub member add --human` (or `talkide-hub token`); an agent's
 * turn uses its daemon's turn credential instead (`turn-credentials.ts`), so nothing an
 * agent leaves behind can speak for it after the turn. Hashed with service-kit's `hashToken`
 * (sha256 hex), as ever.
 */
export const HUB_TOKEN_PREFIX = "thk_";

export async function issueMemberToken(db: HubDb, memberId: string): Promise<string> {
  const token = generateToken(HUB_TOKEN_PREFIX);
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
