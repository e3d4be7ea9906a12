import { toSingleLineText } from "@talkide/prompts";
import type { MessageDetail } from "./details.ts";
import type { ConversationRow, RoutingReason } from "./schema.ts";

/** How much of a quoted message the wake prompt's `[quote` block shows. */
const SNIPPET_CHARS = 120;

/**
 * The delivery document for one message, in the shape of the prompts package's
 * `deliverySchema` (the seed's snake_case fields). `reason` is null for a document that only
 * renders a message (the CLI's output), never for one handed to the daemon.
 *
 * Assignees are shown by handle (`assignee=agent:cook`): the name agents and people use to
 * mention and DM each other.
 */
export function buildDeliveryDocument(input: {
  readonly conversation: ConversationRow;
  readonly top: ConversationRow;
  readonly detail: MessageDetail;
  readonly reason: RoutingReason | null;
}): Record<string, unknown> {
  const { conversation, top, detail } = input;
  const { message, sender, assignee } = detail;
  const group = top.kind === "group";
  return {
    id: message.id,
    seq: message.seq,
    created_at: message.created_at.toISOString(),
    conversation_type: conversation.kind,
    thread_parent_type: conversation.kind === "thread" ? top.kind : null,
    conversation_id: conversation.id,
    conversation_name: group ? top.name : null,
    conversation_description: group ? top.description : null,
    conversation_charter: top.charter,
    thread_root_message_id: conversation.root_message_id,
    sender_type: sender.kind,
    sender_display_name: sender.handle,
    sender_user_id: sender.kind === "human" ? sender.id : null,
    sender_agent_id: sender.kind === "agent" ? sender.agent_id : null,
    reason: input.reason,
    text: message.body,
    task_number: message.task_number,
    task_status: message.task_status,
    task_assignee_type: assignee === null ? null : assignee.kind === "agent" ? "agent" : "user",
    task_assignee_agent_id: assignee?.kind === "agent" ? assignee.handle : null,
    task_assignee_user_id: assignee?.kind === "human" ? assignee.handle : null,
    task_title: message.task_title,
    reactions_summary: detail.reactions.map(
      (r) => `${r.emoji} ${r.handles.map((h) => `@${h}`).join(" ")}`,
    ),
    attachments: detail.attachments.map((a) => ({
      id: a.id,
      name: a.fileName,
      content_type: imageTypeOf(a.fileName),
    })),
    message_metadata:
      detail.quote === null
        ? null
        : { quote: { kind: "message", ref: detail.quote.id, snippet: snippet(detail.quote.body) } },
  };
}

function snippet(body: string): string | null {
  const line = toSingleLineText(body);
  if (line === "") return null;
  const chars = Array.from(line);
  return chars.length <= SNIPPET_CHARS ? line : `${chars.slice(0, SNIPPET_CHARS - 1).join("")}…`;
}

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
};

/**
 * The media type of an image file by its extension, so the wake prompt can say "image" (the
 * hub stores no media type); null for anything else, which the prompt calls a file.
 */
function imageTypeOf(fileName: string): string | null {
  const extension = /\.([A-Za-z]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? "";
  return IMAGE_TYPES[extension] ?? null;
}
