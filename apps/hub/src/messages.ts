import { createHash } from "node:crypto";
import { ApiError } from "@talkide/service-kit";
import { placeMembers, placeOfConversation, resolveTarget, type Place } from "./conversations.ts";
import { loadDetail, loadDetails, type MessageDetail } from "./details.ts";
import { badRequest, notFound } from "./errors.ts";
import { checkEmoji, checkFileName, checkLine, checkText, isBlank, LIMITS } from "./input.ts";
import { requireMemberByHandle } from "./members.ts";
import { mentionedKeys } from "./mentions.ts";
import { newAttachmentId, newMessageId } from "./names.ts";
import { routeMessage } from "./routing.ts";
import type { HubDb, MemberRow, MessageRow } from "./schema.ts";

export interface AttachmentInput {
  readonly name: string;
  readonly content: Uint8Array;
}

export interface SendInput {
  readonly target: string;
  readonly body: string;
  readonly attachments: readonly AttachmentInput[];
  /** A message this one answers (shown to agents as a `[quote` block). */
  readonly quote: string | null;
  /** Publish the new message as a task (`ticlawk task create`). */
  readonly task: { readonly assignee: string | null; readonly title: string | null } | null;
}

export interface SendResult {
  readonly place: Place;
  readonly detail: MessageDetail;
  /** Mentioned handles of members who are not in the conversation (nobody was woken for them). */
  readonly unreachableMentions: readonly string[];
  readonly routed: number;
}

/**
 * Stores a new message and the deliveries it causes, in one transaction: the conversation's
 * next sequence number (a row lock on the conversation serializes senders), the message, its
 * task metadata and attachments, and one outbox row per agent to wake. Handing the outbox to
 * the daemon happens after the commit (see `dispatcher.ts`).
 */
export async function sendMessage(
  db: HubDb,
  caller: MemberRow,
  input: SendInput,
): Promise<SendResult> {
  const body = checkText(input.body, { path: "body", maxChars: LIMITS.bodyChars });
  if (isBlank(body) && input.attachments.length === 0) {
    throw badRequest(
      "empty_body",
      "The message is empty; give the body on standard input.",
      "body",
    );
  }
  if (input.attachments.length > LIMITS.attachmentsPerMessage) {
    throw badRequest(
      "too_many_attachments",
      `${input.attachments.length} attachments; at most ${LIMITS.attachmentsPerMessage} per message.`,
      "attachments",
    );
  }
  const files = input.attachments.map((a, i) => {
    const name = checkFileName(a.name, `attachments.${i}.name`);
    if (a.content.byteLength > LIMITS.attachmentBytes) {
      throw badRequest(
        "attachment_too_large",
        `${name} is ${a.content.byteLength} bytes; an attachment may have at most ${LIMITS.attachmentBytes}.`,
        `attachments.${i}`,
      );
    }
    return { name, content: a.content };
  });
  const title =
    input.task?.title == null
      ? null
      : checkLine(input.task.title, { path: "title", maxChars: LIMITS.titleChars });

  return db.transaction().execute(async (trx) => {
    const place = await resolveTarget(trx, caller, input.target);
    if (input.task !== null && place.conversation.kind === "thread") {
      throw badRequest(
        "task_in_thread",
        `Only top-level messages become tasks; create it in ${place.topTarget} instead of the thread.`,
        "target",
      );
    }
    const members = await placeMembers(trx, place);
    let assigneeId: string | null = null;
    if (input.task?.assignee != null) {
      const assignee = await requireMemberByHandle(trx, input.task.assignee);
      if (!members.some((m) => m.member.id === assignee.id)) {
        throw badRequest(
          "assignee_not_member",
          `@${assignee.handle} is not in ${place.target}; assign a member.`,
          "assignee",
        );
      }
      assigneeId = assignee.id;
    }
    const quoteId =
      input.quote === null ? null : (await visibleMessage(trx, caller, input.quote)).id;

    const seq = await nextCounter(trx, place.conversation.id, "last_seq");
    const taskNumber =
      input.task === null ? null : await nextCounter(trx, place.top.id, "last_task_number");
    const message = await insertMessage(trx, {
      conversation_id: place.conversation.id,
      seq,
      sender_id: caller.id,
      body,
      quote_message_id: quoteId,
      task_number: taskNumber,
      task_status: taskNumber === null ? null : "todo",
      task_assignee_id: assigneeId,
      task_title: taskNumber === null ? null : title,
    });
    for (const [position, file] of files.entries()) {
      await trx
        .insertInto("hub_attachments")
        .values({
          id: newAttachmentId(),
          message_id: message.id,
          position,
          file_name: file.name,
          size_bytes: file.content.byteLength,
          sha256: createHash("sha256").update(file.content).digest("hex"),
          content: file.content,
        })
        .execute();
    }

    const mentions = mentionedKeys(body);
    const routes = routeMessage({
      conversationKind: place.conversation.kind,
      threadParentKind:
        place.conversation.kind === "thread" ? (place.top.kind === "dm" ? "dm" : "group") : null,
      senderId: caller.id,
      members: members.map((m) => ({
        id: m.member.id,
        kind: m.member.kind,
        handleKey: m.member.handle_key,
      })),
      mentionedKeys: mentions,
      assigneeId,
      threadParticipantIds: await threadParticipants(trx, place, message.id),
    });
    if (routes.length > 0) {
      await trx
        .insertInto("hub_outbox")
        .values(
          routes.map((r) => ({
            message_id: message.id,
            recipient_id: r.recipientId,
            reason: r.reason,
          })),
        )
        .execute();
    }
    const memberKeys = new Set(members.map((m) => m.member.handle_key));
    const known = await trx
      .selectFrom("hub_members")
      .select(["handle", "handle_key"])
      .where("handle_key", "in", [...mentions, ""])
      .execute();
    const unreachableMentions = known
      .filter((m) => !memberKeys.has(m.handle_key))
      .map((m) => m.handle);
    return {
      place,
      detail: await loadDetail(trx, message),
      unreachableMentions,
      routed: routes.length,
    };
  });
}

/** The root's author and everyone who wrote in the thread before `excludeId`. */
async function threadParticipants(
  db: HubDb,
  place: Place,
  excludeId: string,
): Promise<ReadonlySet<string>> {
  if (place.root === null) return new Set();
  const rows = await db
    .selectFrom("hub_messages")
    .select("sender_id")
    .distinct()
    .where("conversation_id", "=", place.conversation.id)
    .where("id", "!=", excludeId)
    .execute();
  return new Set([place.root.sender_id, ...rows.map((r) => r.sender_id)]);
}

async function nextCounter(
  db: HubDb,
  conversationId: string,
  column: "last_seq" | "last_task_number",
): Promise<number> {
  const row = await db
    .updateTable("hub_conversations")
    .set((eb) => ({ [column]: eb(column, "+", 1) }))
    .where("id", "=", conversationId)
    .returning(column)
    .executeTakeFirstOrThrow();
  return row[column];
}

async function insertMessage(
  db: HubDb,
  values: Omit<MessageRow, "id" | "created_at">,
): Promise<MessageRow> {
  // Short random ids can collide; the primary key says so and another id is drawn.
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const inserted = await db
      .insertInto("hub_messages")
      .values({ ...values, id: newMessageId() })
      .onConflict((oc) => oc.column("id").doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted !== undefined) return inserted;
  }
  throw new Error("could not draw a free message id in 8 attempts");
}

/** The same answer whether a message does not exist or is in a conversation of others. */
const NO_MESSAGE_OF_YOURS = "No message with this id is in a conversation you can read.";

/** A message the caller may see (it is in one of the caller's conversations), with its place. */
export async function visibleMessage(
  db: HubDb,
  caller: MemberRow,
  messageId: string,
): Promise<MessageRow & { readonly place: Place }> {
  const message = await db
    .selectFrom("hub_messages")
    .selectAll()
    .where("id", "=", messageId)
    .executeTakeFirst();
  if (message === undefined) throw notFound("unknown_message", NO_MESSAGE_OF_YOURS);
  try {
    return { ...message, place: await placeOfConversation(db, caller, message.conversation_id) };
  } catch (error) {
    // Not a member there: the message is none of the caller's business, and its existence too.
    if (error instanceof ApiError) throw notFound("unknown_message", NO_MESSAGE_OF_YOURS);
    throw error;
  }
}

export interface ReadInput {
  readonly target: string | null;
  readonly around: string | null;
  /** Only messages with a smaller sequence number (paging back). */
  readonly before: number | null;
  readonly limit: number;
}

export interface ReadResult {
  readonly place: Place;
  /** For a thread: its root message, shown first. */
  readonly root: MessageDetail | null;
  readonly messages: readonly MessageDetail[];
  /** The conversation's highest sequence number. */
  readonly lastSeq: number;
}

/**
 * Messages of one conversation, oldest first: the latest `limit`, or `limit` around one
 * message (`--around`, which also finds the conversation by itself), or before a sequence
 * number.
 */
export async function readMessages(
  db: HubDb,
  caller: MemberRow,
  input: ReadInput,
): Promise<ReadResult> {
  let place: Place;
  let center: MessageRow | null = null;
  if (input.around !== null) {
    const found = await visibleMessage(db, caller, input.around);
    center = found;
    place = found.place;
    if (input.target !== null) {
      const asked = await resolveTarget(db, caller, input.target);
      if (asked.conversation.id !== place.conversation.id) {
        throw badRequest(
          "message_not_in_target",
          `Message ${found.id} is in ${place.target}, not in ${asked.target}.`,
          "around",
        );
      }
    }
  } else if (input.target !== null) {
    place = await resolveTarget(db, caller, input.target);
  } else {
    throw badRequest(
      "missing_target",
      "Say which conversation to read: --target (or --around <message id>).",
      "target",
    );
  }
  const base = db
    .selectFrom("hub_messages")
    .selectAll()
    .where("conversation_id", "=", place.conversation.id);
  let rows: MessageRow[];
  if (center !== null) {
    const half = Math.floor((input.limit - 1) / 2);
    const before = await base
      .where("seq", "<", center.seq)
      .orderBy("seq", "desc")
      .limit(half)
      .execute();
    const after = await base
      .where("seq", ">=", center.seq)
      .orderBy("seq", "asc")
      .limit(input.limit - before.length)
      .execute();
    rows = [...before.reverse(), ...after];
  } else {
    const query = input.before === null ? base : base.where("seq", "<", input.before);
    rows = (await query.orderBy("seq", "desc").limit(input.limit).execute()).reverse();
  }
  const root = place.root === null ? null : await loadDetail(db, place.root);
  return {
    place,
    root,
    messages: await loadDetails(db, rows),
    lastSeq: place.conversation.last_seq,
  };
}

/** Adds or removes the caller's reaction; returns the message as it is now. */
export async function reactToMessage(
  db: HubDb,
  caller: MemberRow,
  input: { readonly messageId: string; readonly emoji: string; readonly remove: boolean },
): Promise<{ readonly place: Place; readonly detail: MessageDetail; readonly changed: boolean }> {
  const emoji = checkEmoji(input.emoji);
  const message = await visibleMessage(db, caller, input.messageId);
  let changed: boolean;
  if (input.remove) {
    const result = await db
      .deleteFrom("hub_reactions")
      .where("message_id", "=", message.id)
      .where("member_id", "=", caller.id)
      .where("emoji", "=", emoji)
      .executeTakeFirst();
    changed = result.numDeletedRows > 0n;
  } else {
    const result = await db
      .insertInto("hub_reactions")
      .values({ message_id: message.id, member_id: caller.id, emoji })
      .onConflict((oc) => oc.columns(["message_id", "member_id", "emoji"]).doNothing())
      .executeTakeFirst();
    changed = (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }
  const { place, ...row } = message;
  return { place, detail: await loadDetail(db, row), changed };
}
