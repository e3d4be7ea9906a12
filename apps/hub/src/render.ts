import {
  buildReactionsSuffix,
  buildTaskSuffix,
  neutralizeInline,
  neutralizeMultiLine,
  parseDelivery,
  toMultiLineText,
  toSingleLineText,
} from "@talkide/prompts";
import { buildDeliveryDocument } from "./delivery.ts";
import type { MessageDetail } from "./details.ts";
import type { ConversationRow } from "./schema.ts";

/**
 * The canonical text the `ticlawk` CLI prints. A message is one envelope line in the wake
 * prompt's format, written from the reader's side and without `reason=` (that belongs to a
 * delivery, not to a message):
 *
 *     [target=#general msg=a1b2c3d4 seq=3 time=2026-05-02T14:32:11.000Z type=human] @alice: [task #3 status=todo] body
 *
 * Task and reaction suffixes come from the prompts package, so they read exactly as in a wake
 * message; attachments add ` [files: "a.pdf" "b.png"]`. The body is normalized and neutralized
 * as in the wake prompt: no line of it can pass for an envelope, and its first line cannot
 * pass for a suffix.
 */
export function renderMessageLine(input: {
  readonly target: string;
  readonly conversation: ConversationRow;
  readonly top: ConversationRow;
  readonly detail: MessageDetail;
}): string {
  const { detail } = input;
  const { message, sender } = detail;
  const delivery = parseDelivery(buildDeliveryDocument({ ...input, reason: null }));
  const header =
    `[target=${input.target} msg=${message.id} seq=${message.seq} time=${message.created_at.toISOString()}` +
    ` type=${sender.kind}] @${sender.handle}:` +
    buildTaskSuffix(delivery) +
    buildReactionsSuffix(delivery) +
    filesSuffix(detail);
  const body = renderBody(message.body);
  return body === "" ? header : `${header} ${body}`;
}

function filesSuffix(detail: MessageDetail): string {
  if (detail.attachments.length === 0) return "";
  const names = detail.attachments.map((a) =>
    neutralizeInline(JSON.stringify(toSingleLineText(a.fileName))),
  );
  return ` [files: ${names.join(" ")}]`;
}

const FILES_SUFFIX_START = "[files:";

/** Multi-line user text as the wake prompt shows it, plus the hub's own `[files:` suffix. */
export function renderBody(body: string): string {
  const text = neutralizeMultiLine(toMultiLineText(body));
  const firstVisible = Array.from(text).findIndex((c) => !/[\p{White_Space}\p{Cf}]/u.test(c));
  const folded = text
    .split("\n", 1)[0]
    ?.normalize("NFKC")
    .replace(/[\p{White_Space}\p{Cf}]/gu, "")
    .toLowerCase();
  if (firstVisible < 0 || folded?.startsWith(FILES_SUFFIX_START) !== true) return text;
  const chars = Array.from(text);
  chars.splice(firstVisible, 0, "\\");
  return chars.join("");
}

/** A charter as the wake prompt's `[charter]` block shows it. */
export function renderCharter(charter: string): string {
  return `[charter]\n${neutralizeMultiLine(toMultiLineText(charter))}\n[/charter]`;
}

/** One line of single-line user text (a group purpose) that cannot close a block. */
export function renderInline(text: string): string {
  return neutralizeInline(toSingleLineText(text));
}
