import type { ConversationKind, MemberKind, RoutingReason } from "./schema.ts";

export interface RoutingMember {
  readonly id: string;
  readonly kind: MemberKind;
  readonly handleKey: string;
}

export interface RoutingInput {
  readonly conversationKind: ConversationKind;
  /** For threads: what the thread hangs off. */
  readonly threadParentKind: "group" | "dm" | null;
  readonly senderId: string;
  /** Members of the conversation (of the parent, for a thread). */
  readonly members: readonly RoutingMember[];
  readonly mentionedKeys: ReadonlySet<string>;
  /** A task created with an assignee. */
  readonly assigneeId: string | null;
  /** For threads: the root's author and everyone who wrote in the thread before. */
  readonly threadParticipantIds: ReadonlySet<string>;
}

export interface Route {
  readonly recipientId: string;
  readonly reason: RoutingReason;
}

/**
 * Who is woken by a new message, and why. Only agents get deliveries (people read with the
 * CLI), never the sender. One reason per recipient, the strongest that applies:
 *
 * 1. `assignment`: the message is a task assigned to the agent;
 * 2. `mention`: the body @mentions the agent;
 * 3. `dm`: the agent is the other party of a direct conversation (or of a thread in one);
 * 4. `thread_follow`: in a group thread, the agent wrote the root or an earlier reply;
 * 5. `ambient`: a top-level group message the agent sees as a member.
 *
 * Replies in a group thread that neither mention an agent nor follow its earlier part do not
 * wake it: a thread keeps a topic out of the main flow, for agents as for people.
 */
export function routeMessage(input: RoutingInput): readonly Route[] {
  const direct = input.conversationKind === "dm" || input.threadParentKind === "dm";
  const routes: Route[] = [];
  for (const member of input.members) {
    if (member.kind !== "agent" || member.id === input.senderId) continue;
    const reason = reasonFor(member, input, direct);
    if (reason !== null) routes.push({ recipientId: member.id, reason });
  }
  return routes;
}

function reasonFor(
  member: RoutingMember,
  input: RoutingInput,
  direct: boolean,
): RoutingReason | null {
  if (input.assigneeId === member.id) return "assignment";
  if (input.mentionedKeys.has(member.handleKey)) return "mention";
  if (direct) return "dm";
  if (input.conversationKind === "thread") {
    return input.threadParticipantIds.has(member.id) ? "thread_follow" : null;
  }
  return "ambient";
}
