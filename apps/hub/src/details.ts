import type { HubDb, MemberRow, MessageRow } from "./schema.ts";

/** A message with what showing it needs: sender, assignee, reactions, attachments, quote. */
export interface MessageDetail {
  readonly message: MessageRow;
  readonly sender: MemberRow;
  readonly assignee: MemberRow | null;
  /** One entry per emoji, in order of first use, with who reacted in order. */
  readonly reactions: readonly { readonly emoji: string; readonly handles: readonly string[] }[];
  readonly attachments: readonly {
    readonly id: string;
    readonly fileName: string;
    readonly sizeBytes: number;
  }[];
  readonly quote: { readonly id: string; readonly body: string } | null;
}

/** Loads the details of messages in a few queries, keeping the given order. */
export async function loadDetails(
  db: HubDb,
  messages: readonly MessageRow[],
): Promise<MessageDetail[]> {
  if (messages.length === 0) return [];
  const ids = messages.map((m) => m.id);
  const memberIds = [
    ...new Set(
      messages.flatMap((m) =>
        m.task_assignee_id === null ? [m.sender_id] : [m.sender_id, m.task_assignee_id],
      ),
    ),
  ];
  const members = new Map(
    (await db.selectFrom("hub_members").selectAll().where("id", "in", memberIds).execute()).map(
      (m) => [m.id, m],
    ),
  );
  const reactionRows = await db
    .selectFrom("hub_reactions")
    .innerJoin("hub_members", "hub_members.id", "hub_reactions.member_id")
    .select(["hub_reactions.message_id", "hub_reactions.emoji", "hub_members.handle"])
    .where("hub_reactions.message_id", "in", ids)
    .orderBy("hub_reactions.created_at")
    .orderBy("hub_members.handle_key")
    .execute();
  const attachmentRows = await db
    .selectFrom("hub_attachments")
    .select(["id", "message_id", "file_name", "size_bytes"])
    .where("message_id", "in", ids)
    .orderBy("message_id")
    .orderBy("position")
    .execute();
  const quoteIds = [
    ...new Set(messages.flatMap((m) => (m.quote_message_id === null ? [] : [m.quote_message_id]))),
  ];
  const quotes = new Map(
    quoteIds.length === 0
      ? []
      : (
          await db
            .selectFrom("hub_messages")
            .select(["id", "body"])
            .where("id", "in", quoteIds)
            .execute()
        ).map((q) => [q.id, q]),
  );
  return messages.map((message) => {
    const reactions: { emoji: string; handles: string[] }[] = [];
    for (const row of reactionRows) {
      if (row.message_id !== message.id) continue;
      const entry = reactions.find((r) => r.emoji === row.emoji);
      if (entry === undefined) reactions.push({ emoji: row.emoji, handles: [row.handle] });
      else entry.handles.push(row.handle);
    }
    const sender = members.get(message.sender_id);
    if (sender === undefined) throw new Error(`message ${message.id} has no sender row`);
    return {
      message,
      sender,
      assignee:
        message.task_assignee_id === null ? null : (members.get(message.task_assignee_id) ?? null),
      reactions,
      attachments: attachmentRows
        .filter((a) => a.message_id === message.id)
        .map((a) => ({ id: a.id, fileName: a.file_name, sizeBytes: a.size_bytes })),
      quote:
        message.quote_message_id === null ? null : (quotes.get(message.quote_message_id) ?? null),
    };
  });
}

export async function loadDetail(db: HubDb, message: MessageRow): Promise<MessageDetail> {
  const [detail] = await loadDetails(db, [message]);
  if (detail === undefined) throw new Error("loadDetails lost a message");
  return detail;
}
