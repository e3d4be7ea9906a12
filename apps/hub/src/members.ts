import { badRequest, conflict, notFound } from "./errors.ts";
import { nameKey, newMemberId, normalizeName, SAFE_NAME_RULE } from "./names.ts";
import type { HubDb, MemberKind, MemberRow, Role } from "./schema.ts";

export const GENERAL_GROUP_ID = "g-general";

export function checkHandle(value: string, path = "handle"): string {
  const handle = normalizeName(value);
  if (handle === null) {
    throw badRequest("invalid_handle", `A handle is ${SAFE_NAME_RULE}.`, path);
  }
  return handle;
}

export async function getMember(db: HubDb, id: string): Promise<MemberRow | undefined> {
  return db.selectFrom("hub_members").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function findMemberByHandle(
  db: HubDb,
  handle: string,
): Promise<MemberRow | undefined> {
  return db
    .selectFrom("hub_members")
    .selectAll()
    .where("handle_key", "=", nameKey(handle))
    .executeTakeFirst();
}

export async function requireMemberByHandle(db: HubDb, handle: string): Promise<MemberRow> {
  const member = await findMemberByHandle(db, handle);
  if (member === undefined) {
    throw notFound(
      "unknown_member",
      "No member has this handle on this hub; `ticlawk server info` lists everyone.",
    );
  }
  return member;
}

export async function findMemberByAgentId(
  db: HubDb,
  agentId: string,
): Promise<MemberRow | undefined> {
  return db
    .selectFrom("hub_members")
    .selectAll()
    .where("agent_id", "=", agentId)
    .executeTakeFirst();
}

export async function listMembers(db: HubDb): Promise<readonly MemberRow[]> {
  return db.selectFrom("hub_members").selectAll().orderBy("handle_key").execute();
}

export interface NewMember {
  readonly kind: MemberKind;
  readonly handle: string;
  /** Required for agents: the id of the daemon agent the member is bound to. */
  readonly agentId: string | null;
  /** Join `#general`, with this role (`owner` when the group has no owner yet and none is given). */
  readonly joinGeneral: boolean;
  readonly generalRole: Role | null;
}

/**
 * Adds a member. A handle is unique on the hub (case-insensitively), and a daemon agent is
 * bound to at most one member. Joining `#general` is the default: it is where the local loop
 * starts. The first person to join it without a role becomes its owner, so someone can set
 * its charter.
 */
export async function createMember(
  db: HubDb,
  input: NewMember,
  /** Asks the daemon (over its API) whether it has this agent. */
  agentExists: (agentId: string) => Promise<boolean>,
): Promise<MemberRow> {
  const handle = checkHandle(input.handle);
  return db.transaction().execute(async (trx) => {
    if ((await findMemberByHandle(trx, handle)) !== undefined) {
      throw conflict("handle_taken", `The handle @${handle} is taken; choose another.`);
    }
    if (input.kind === "agent") {
      if (input.agentId === null)
        throw badRequest(
          "missing_agent_id",
          "An agent member needs its daemon agent id.",
          "agentId",
        );
      if (!(await agentExists(input.agentId))) {
        throw notFound(
          "unknown_agent",
          `No agent ${JSON.stringify(input.agentId)} is registered with the hub's daemon; run talkide-daemon agent register first.`,
        );
      }
      const bound = await findMemberByAgentId(trx, input.agentId);
      if (bound !== undefined) {
        throw conflict(
          "agent_already_member",
          `Agent ${input.agentId} is already on the hub as @${bound.handle}.`,
        );
      }
    }
    const member = await trx
      .insertInto("hub_members")
      .values({
        id: newMemberId(),
        handle,
        handle_key: nameKey(handle),
        kind: input.kind,
        agent_id: input.kind === "agent" ? input.agentId : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.joinGeneral) {
      let role = input.generalRole;
      if (role === null) {
        const owner = await trx
          .selectFrom("hub_conversation_members")
          .select("member_id")
          .where("conversation_id", "=", GENERAL_GROUP_ID)
          .where("role", "=", "owner")
          .executeTakeFirst();
        role = owner === undefined && input.kind === "human" ? "owner" : "member";
      }
      await trx
        .insertInto("hub_conversation_members")
        .values({ conversation_id: GENERAL_GROUP_ID, member_id: member.id, role })
        .execute();
    }
    return member;
  });
}
