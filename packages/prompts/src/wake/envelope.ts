/**
 * The envelope line of a wake prompt: the reply target, the header
 * `[target=T msg=ID seq=N time=CREATED_AT type=TYPE reason=R] \@SENDER:` and the task and
 * reactions suffixes that follow it on the same line.
 */
import { isSafeToken } from "../text/safe-token.ts";
import { escapeUserText, toSingleLineText, trimWhiteSpace } from "@talkide/text";
import { ensureDelivery, type Delivery, type DeliveryReason } from "./delivery.ts";

/** What the header shows when a delivery names no usable sender (the seed's fallback). */
export const UNKNOWN_SENDER = "unknown";

/**
 * The sender's handle: the display name when it is a safe token (after trimming), otherwise
 * the sender's id (an agent's own id first for `sender_type` agent, the user id first for the
 * others), otherwise `null`.
 */
export function senderHandle(delivery: Delivery): string | null {
  const d = ensureDelivery(delivery);
  const display = d.sender_display_name === null ? "" : trimWhiteSpace(d.sender_display_name);
  if (isSafeToken(display)) return display;
  const ids =
    d.sender_type === "agent"
      ? [d.sender_agent_id, d.sender_user_id]
      : [d.sender_user_id, d.sender_agent_id];
  return ids.find((id) => id !== null) ?? null;
}

/** The group part of a target: the group name when it is a safe token, else the conversation id. */
function groupReference(d: Delivery): string {
  const name = d.conversation_name === null ? "" : trimWhiteSpace(d.conversation_name);
  return isSafeToken(name) ? name : d.conversation_id;
}

/** The DM part of a target: `dm:@peer` when the peer has a handle, else `dm:CONVERSATION_ID`. */
function directReference(d: Delivery): string {
  const handle = senderHandle(d);
  return handle === null ? `dm:${d.conversation_id}` : `dm:@${handle}`;
}

/**
 * Where a reply to this delivery goes: `dm:@peer` for a DM, `#group` for a group, and the
 * parent's target plus `:ROOT` for a thread (`#group:ROOT`, or `dm:@peer:ROOT` for a thread
 * inside a DM; the parent's target alone when the thread's root is unknown). Every part is a safe token, so the target is safe inside `--target "..."`.
 */
export function buildEnvelopeTarget(delivery: Delivery): string {
  const d = ensureDelivery(delivery);
  switch (d.conversation_type) {
    case "dm":
      return directReference(d);
    case "group":
      return `#${groupReference(d)}`;
    case "thread": {
      const parent = d.thread_parent_type === "dm" ? directReference(d) : `#${groupReference(d)}`;
      // Without its root a thread cannot be addressed; the reply goes to its parent instead
      // (the seed used the message's own id, which would open a nested thread).
      return d.thread_root_message_id === null ? parent : `${parent}:${d.thread_root_message_id}`;
    }
  }
}

function displayReason(reason: DeliveryReason): string {
  return reason === "thread_follow" ? "reply_follow" : reason;
}

/**
 * The envelope header without suffixes, ending in `\@SENDER:`; ` seq=` only when known. The
 * backslash keeps the CLI from reading a workspace file named like the sender (`.env`).
 */
export function buildEnvelopeHeader(delivery: Delivery): string {
  const d = ensureDelivery(delivery);
  const seq = d.seq === null ? "" : ` seq=${d.seq}`;
  const reason = d.reason === null ? "" : ` reason=${displayReason(d.reason)}`;
  const sender = senderHandle(d) ?? UNKNOWN_SENDER;
  return (
    `[target=${buildEnvelopeTarget(d)} msg=${d.id}${seq} time=${d.created_at}` +
    ` type=${d.sender_type}${reason}] \\@${sender}:`
  );
}

/**
 * A JSON string literal of single-line text in its escaped form. It cannot hold a line
 * break or an unescaped `"`, so it stays one value on the line of the prompt that carries it.
 * Its `<` are written `\u003c`: JSON doubles the backslash of an escaped `\<`, which would
 * leave the `<` bare (spec/wake-prompt.md, "User text forges no wrapper").
 */
export function quoteSingleLine(value: string): string {
  return JSON.stringify(escapeUserText(toSingleLineText(value))).replaceAll("<", "\\u003c");
}

function assignee(d: Delivery): string | null {
  const id = d.task_assignee_agent_id ?? d.task_assignee_user_id;
  return d.task_assignee_type === null || id === null ? null : `${d.task_assignee_type}:${id}`;
}

/** ` [task #N status=S assignee=TYPE:ID title="..."]`, or `""` when the message is no task. */
export function buildTaskSuffix(delivery: Delivery): string {
  const d = ensureDelivery(delivery);
  if (d.task_number === null) return "";
  const parts = [`task #${d.task_number} status=${d.task_status ?? "todo"}`];
  const owner = assignee(d);
  if (owner !== null) parts.push(`assignee=${owner}`);
  const title = d.task_title === null ? "" : toSingleLineText(d.task_title);
  if (title !== "") parts.push(`title=${quoteSingleLine(title)}`);
  return ` [${parts.join(" ")}]`;
}

/** ` [reactions: A; B]`, or `""` when there are none. */
export function buildReactionsSuffix(delivery: Delivery): string {
  const d = ensureDelivery(delivery);
  if (d.reactions_summary.length === 0) return "";
  return ` [reactions: ${d.reactions_summary.map(escapeUserText).join("; ")}]`;
}
