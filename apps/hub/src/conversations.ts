import { badRequest, forbidden, notFound } from "./errors.ts";
import { requireMemberByHandle } from "./members.ts";
import { nameKey, newDmId, threadIdFor } from "./names.ts";
import type { ConversationRow, HubDb, MemberRow, MessageRow, Role } from "./schema.ts";
import { formatTarget, parseTarget, TargetSyntaxError, type ParentTarget } from "./targets.ts";

/**
 * A conversation as one member sees it: the conversation itself, its top-level conversation
 * (the group or DM; for a thread, the one it hangs off), the thread's root message, the
 * caller's role, the other party of a DM, and the target that names it from the caller's
 * side. Every check of "may this member see this" happens here.
 */
export interface Place {
  readonly conversation: ConversationRow;
  readonly top: ConversationRow;
  readonly root: MessageRow | null;
  readonly role: Role;
  /** For a DM or a thread in one: the other participant. */
  readonly peer: MemberRow | null;
  /** Where a message to this conversation goes, written from the caller's side. */
  readonly target: string;
  /** The target of the top-level conversation (the same as `target` unless this is a thread). */
  readonly topTarget: string;
}

export interface PlaceMember {
  readonly member: MemberRow;
  readonly role: Role;
}

/** The same answer whether a direct conversation does not exist or is between others. */
const NO_DM_OF_YOURS = "No direct conversation of yours has this id.";

/** Resolves a target for the caller. DMs and threads exist implicitly and are created on first use. */
export async function resolveTarget(db: HubDb, caller: MemberRow, target: string): Promise<Place> {
  let parsed;
  try {
    parsed = parseTarget(target);
  } catch (error) {
    if (error instanceof TargetSyntaxError) throw badRequest(error.code, error.message, "target");
    throw error;
  }
  const top = await resolveParent(db, caller, parsed.parent);
  // Membership first: whether a message exists in a conversation is none of an outsider's
  // business, so an outsider learns nothing from a thread target's message id.
  const topPlace = await placeOf(db, caller, top);
  if (parsed.root === null) return topPlace;
  const root = await db
    .selectFrom("hub_messages")
    .selectAll()
    .where("id", "=", parsed.root)
    .executeTakeFirst();
  if (root === undefined || !(await sameTree(db, root, top.id))) {
    throw notFound("unknown_message", `No such message in ${topPlace.target}.`);
  }
  if (root.conversation_id !== top.id) {
    const outer = await placeOf(db, caller, await conversationById(db, root.conversation_id));
    throw badRequest(
      "thread_nesting",
      `Threads cannot be nested: message ${root.id} is itself in the thread ${outer.target}; reply there.`,
      "target",
    );
  }
  const thread = await ensureThread(db, top, root);
  return placeOf(db, caller, thread);
}

/** The place of a conversation the caller already knows by id (a message's conversation). */
export async function placeOfConversation(
  db: HubDb,
  caller: MemberRow,
  conversationId: string,
): Promise<Place> {
  return placeOf(db, caller, await conversationById(db, conversationId));
}

/** Members of a conversation (of its top-level conversation, for a thread), owners first. */
export async function placeMembers(db: HubDb, place: Place): Promise<readonly PlaceMember[]> {
  const rows = await db
    .selectFrom("hub_conversation_members")
    .innerJoin("hub_members", "hub_members.id", "hub_conversation_members.member_id")
    .selectAll("hub_members")
    .select("hub_conversation_members.role")
    .where("hub_conversation_members.conversation_id", "=", place.top.id)
    .execute();
  const order: Record<Role, number> = { owner: 0, admin: 1, member: 2 };
  return rows
    .map(({ role, ...member }) => ({ member, role }))
    .sort(
      (a, b) =>
        order[a.role] - order[b.role] || a.member.handle_key.localeCompare(b.member.handle_key),
    );
}

async function conversationById(db: HubDb, id: string): Promise<ConversationRow> {
  return db
    .selectFrom("hub_conversations")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

/** Whether a message belongs to the conversation `topId` or to one of its threads. */
async function sameTree(db: HubDb, message: MessageRow, topId: string): Promise<boolean> {
  if (message.conversation_id === topId) return true;
  const conversation = await conversationById(db, message.conversation_id);
  return conversation.parent_id === topId;
}

async function resolveParent(
  db: HubDb,
  caller: MemberRow,
  parent: ParentTarget,
): Promise<ConversationRow> {
  switch (parent.kind) {
    case "group": {
      const group =
        (await db
          .selectFrom("hub_conversations")
          .selectAll()
          .where("kind", "=", "group")
          .where("name_key", "=", nameKey(parent.ref))
          .executeTakeFirst()) ??
        (await db
          .selectFrom("hub_conversations")
          .selectAll()
          .where("kind", "=", "group")
          .where("id", "=", parent.ref)
          .executeTakeFirst());
      if (group === undefined) {
        throw notFound(
          "unknown_group",
          "No group has this name or id; `ticlawk server info` lists the groups.",
        );
      }
      return group;
    }
    case "dm-peer": {
      const peer = await requireMemberByHandle(db, parent.handle);
      if (peer.id === caller.id) {
        throw badRequest(
          "invalid_target",
          "A direct conversation needs another member; you cannot DM yourself.",
          "target",
        );
      }
      return ensureDm(db, caller, peer);
    }
    case "dm-id": {
      const dm = await db
        .selectFrom("hub_conversations")
        .selectAll()
        .where("kind", "=", "dm")
        .where("id", "=", parent.id)
        .executeTakeFirst();
      if (dm === undefined) throw notFound("unknown_conversation", NO_DM_OF_YOURS);
      return dm;
    }
  }
}

async function ensureDm(db: HubDb, a: MemberRow, b: MemberRow): Promise<ConversationRow> {
  const dmKey = [a.id, b.id].sort().join(":");
  await db
    .insertInto("hub_conversations")
    .values({ id: newDmId(), kind: "dm", dm_key: dmKey })
    .onConflict((oc) => oc.column("dm_key").doNothing())
    .execute();
  const dm = await db
    .selectFrom("hub_conversations")
    .selectAll()
    .where("dm_key", "=", dmKey)
    .executeTakeFirstOrThrow();
  await db
    .insertInto("hub_conversation_members")
    .values([
      { conversation_id: dm.id, member_id: a.id, role: "member" },
      { conversation_id: dm.id, member_id: b.id, role: "member" },
    ])
    .onConflict((oc) => oc.columns(["conversation_id", "member_id"]).doNothing())
    .execute();
  return dm;
}

async function ensureThread(
  db: HubDb,
  top: ConversationRow,
  root: MessageRow,
): Promise<ConversationRow> {
  const id = threadIdFor(root.id);
  await db
    .insertInto("hub_conversations")
    .values({ id, kind: "thread", parent_id: top.id, root_message_id: root.id })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  return conversationById(db, id);
}

async function placeOf(
  db: HubDb,
  caller: MemberRow,
  conversation: ConversationRow,
): Promise<Place> {
  const top =
    conversation.parent_id === null
      ? conversation
      : await conversationById(db, conversation.parent_id);
  const membership = await db
    .selectFrom("hub_conversation_members")
    .select("role")
    .where("conversation_id", "=", top.id)
    .where("member_id", "=", caller.id)
    .executeTakeFirst();
  if (membership === undefined) {
    if (top.kind === "group") {
      throw forbidden(
        "not_a_member",
        `You are not a member of #${top.name ?? top.id}; ask one of its owners or admins to add you.`,
      );
    }
    throw notFound("unknown_conversation", NO_DM_OF_YOURS);
  }
  const root =
    conversation.root_message_id === null
      ? null
      : await db
          .selectFrom("hub_messages")
          .selectAll()
          .where("id", "=", conversation.root_message_id)
          .executeTakeFirstOrThrow();
  let peer: MemberRow | null = null;
  let parent: ParentTarget;
  if (top.kind === "dm") {
    peer =
      (await db
        .selectFrom("hub_conversation_members")
        .innerJoin("hub_members", "hub_members.id", "hub_conversation_members.member_id")
        .selectAll("hub_members")
        .where("hub_conversation_members.conversation_id", "=", top.id)
        .where("hub_members.id", "!=", caller.id)
        .executeTakeFirst()) ?? null;
    parent =
      peer === null ? { kind: "dm-id", id: top.id } : { kind: "dm-peer", handle: peer.handle };
  } else {
    parent = { kind: "group", ref: top.name ?? top.id };
  }
  return {
    conversation,
    top,
    root,
    role: membership.role,
    peer,
    target: formatTarget(parent, root?.id ?? null),
    topTarget: formatTarget(parent, null),
  };
}

/** Group charters need the owner or admin role; either party of a DM may write its charter. */
export function mayWriteCharter(place: Place): boolean {
  return place.top.kind === "dm" || place.role === "owner" || place.role === "admin";
}

export function isModerator(place: Place): boolean {
  return place.top.kind === "group" && (place.role === "owner" || place.role === "admin");
}
