import { randomBytes, randomUUID } from "node:crypto";
import { hashToken } from "../store/tokens.ts";
import type { HubDb, MemberRow } from "./schema.ts";

/**
 * Member tokens of the hub (distinct from the daemon's admin and intake tokens by prefix and
 * table). A person gets a long-lived token, shown once. An agent gets a fresh token for every
 * turn through the turn's environment, valid only while that turn runs: what an agent leaves
 * behind (a file, a background process) cannot speak for it after the turn.
 */
export const HUB_TOKEN_PREFIX = "thk_";

function generateHubToken(): string {
  return HUB_TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

export async function issueMemberToken(db: HubDb, memberId: string): Promise<string> {
  const token = generateHubToken();
  await db
    .insertInto("hub_tokens")
    .values({ id: randomUUID(), member_id: memberId, token_hash: hashToken(token), turn_id: null })
    .execute();
  return token;
}

/** A token for one turn; tokens of this member's turns that ended are removed on the way. */
export async function issueTurnToken(db: HubDb, memberId: string, turnId: string): Promise<string> {
  const token = generateHubToken();
  await db
    .deleteFrom("hub_tokens")
    .where("member_id", "=", memberId)
    .where("turn_id", "is not", null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("turns")
            .select("turns.id")
            .whereRef("turns.id", "=", "hub_tokens.turn_id")
            .where("turns.state", "=", "running"),
        ),
      ),
    )
    .execute();
  await db
    .insertInto("hub_tokens")
    .values({
      id: randomUUID(),
      member_id: memberId,
      token_hash: hashToken(token),
      turn_id: turnId,
    })
    .execute();
  return token;
}

export type TokenCheck =
  | { readonly ok: true; readonly member: MemberRow }
  | { readonly ok: false; readonly reason: "unknown" | "turn_ended" };

export async function verifyHubToken(db: HubDb, token: string): Promise<TokenCheck> {
  const row = await db
    .selectFrom("hub_tokens")
    .innerJoin("hub_members", "hub_members.id", "hub_tokens.member_id")
    .leftJoin("turns", "turns.id", "hub_tokens.turn_id")
    .selectAll("hub_members")
    .select(["hub_tokens.turn_id", "turns.state as turn_state"])
    .where("hub_tokens.token_hash", "=", hashToken(token))
    .where("hub_tokens.revoked_at", "is", null)
    .executeTakeFirst();
  if (row === undefined) return { ok: false, reason: "unknown" };
  const { turn_id: turnId, turn_state: turnState, ...member } = row;
  if (turnId !== null && turnState !== "running") return { ok: false, reason: "turn_ended" };
  return { ok: true, member };
}
