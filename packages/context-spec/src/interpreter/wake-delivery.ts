// The render context of the wake prompt's template, written from the prose of
// spec/wake-prompt.md ("Delivery document", "Refusals", "Degrading", "Reply target",
// "Envelope line", "Blocks", "User text") and independent of @talkide/prompts on purpose: two
// readings of one text must agree. Optional parts of the layout are lists of zero or one
// element, so the template's {{#each}} shows or leaves them out.

import { escaped } from "./escape.ts";
import { trimWhiteSpace } from "./unicode.ts";

export interface WakeRefusal {
  readonly code: "missing_field" | "invalid_field" | "conflicting_field";
  readonly path: string;
}

export type WakeResult =
  | { readonly ok: true; readonly context: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly error: WakeRefusal };

/** The CLI name the cases use. */
const CLI = "ticlawk";
const SAFE_TOKEN = /^[\p{L}\p{Nd}._-]{1,64}$/u;
const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;
const LINE_BREAK = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/gu;
const WHITE_SPACE_RUN = /\p{White_Space}+/gu;
const CONTROL = /\p{Cc}/gu;
const CONTROL_BUT_TAB_AND_LF = /(?![\t\n])\p{Cc}/gu;
const REACTION_DELIMITER = /[[\];]/u;

type Document = Readonly<Record<string, unknown>>;

class Refused extends Error {
  readonly refusal: WakeRefusal;
  constructor(refusal: WakeRefusal) {
    super(`${refusal.code} at ${refusal.path}`);
    this.refusal = refusal;
  }
}

export function readWakeDelivery(bytes: Uint8Array): WakeResult {
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, error: { code: "invalid_field", path: "" } };
  }
  if (typeof document !== "object" || document === null || Array.isArray(document))
    return { ok: false, error: { code: "invalid_field", path: "" } };
  try {
    return { ok: true, context: wakeContext(document as Document) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, error: error.refusal };
    throw error;
  }
}

// --- values -------------------------------------------------------------------------------

/** A string as every rule reads it: unpaired surrogates become U+FFFD, then NFC. */
function textOf(value: unknown): string | null {
  return typeof value === "string" ? value.toWellFormed().normalize("NFC") : null;
}

function tokenOf(value: unknown): string | null {
  const text = textOf(value);
  return text !== null && SAFE_TOKEN.test(text) ? text : null;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | null {
  return typeof value === "string" && (allowed as readonly string[]).includes(value)
    ? (value as T)
    : null;
}

function wholeNumberOf(value: unknown, min: number): string | null {
  let digits: string | null = null;
  if (typeof value === "number" && Number.isSafeInteger(value)) digits = String(value);
  if (typeof value === "string" && DECIMAL.test(value)) digits = value;
  return digits !== null && BigInt(digits) >= BigInt(min) ? digits : null;
}

function isTimestamp(value: string): boolean {
  const m = TIMESTAMP.exec(value);
  if (m === null) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((part) => Number(part));
  const days = new Date(Date.UTC(year ?? 0, month ?? 0, 0)).getUTCDate();
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return (
    (month ?? 0) >= 1 &&
    (month ?? 0) <= 12 &&
    (day ?? 0) >= 1 &&
    (day ?? 0) <= days &&
    (hour ?? 0) <= 23 &&
    (minute ?? 0) <= 59 &&
    (second ?? 0) <= 59 &&
    offsetOk
  );
}

/**
 * Multi-line rule: line breaks to \n, other controls but tab to U+FFFD, trimmed; then the
 * escaped form.
 */
function multiLine(value: string): string {
  return escaped(
    trimWhiteSpace(value.replace(LINE_BREAK, "\n").replace(CONTROL_BUT_TAB_AND_LF, "\uFFFD")),
  );
}

/** Single-line rule: white space runs to one space, trimmed, controls to U+FFFD; escaped. */
function singleLine(value: string): string {
  return escaped(trimWhiteSpace(value.replace(WHITE_SPACE_RUN, " ")).replace(CONTROL, "\uFFFD"));
}

/** On a line of the prompt's own: bare when a safe token, else a JSON string. */
function bareOrJson(value: string): string {
  return SAFE_TOKEN.test(value) ? value : jsonString(value);
}

/** A JSON string with every `<` written as the JSON escape `\u003c`, so none stands bare. */
function jsonString(value: string): string {
  return JSON.stringify(value).replace(/</gu, "\\u003c");
}

function isSafeArgument(value: string): boolean {
  return SAFE_TOKEN.test(value) && !value.startsWith("-");
}

function list<T>(value: T | null): T[] {
  return value === null ? [] : [value];
}

// --- refusals -----------------------------------------------------------------------------

/** `id` or `message_id`, each a safe token when given (checked before anything else). */
function messageIdField(document: Document, key: "id" | "message_id"): string | null {
  const value = document[key];
  if (value === undefined || value === null) return null;
  const token = tokenOf(value);
  if (token === null) throw new Refused({ code: "invalid_field", path: key });
  return token;
}

/** After every field passed: the two ids must agree, and one of them must be there. */
function resolveMessageId(id: string | null, other: string | null): string {
  if (id !== null && other !== null && id !== other)
    throw new Refused({ code: "conflicting_field", path: "message_id" });
  const resolved = id ?? other;
  if (resolved === null) throw new Refused({ code: "missing_field", path: "id" });
  return resolved;
}

function createdAt(document: Document): string {
  if (!Object.hasOwn(document, "created_at"))
    throw new Refused({ code: "missing_field", path: "created_at" });
  const text = textOf(document["created_at"]);
  if (text === null || !isTimestamp(text))
    throw new Refused({ code: "invalid_field", path: "created_at" });
  return text;
}

function conversationId(document: Document): string {
  if (!Object.hasOwn(document, "conversation_id"))
    throw new Refused({ code: "missing_field", path: "conversation_id" });
  const token = tokenOf(document["conversation_id"]);
  if (token === null) throw new Refused({ code: "invalid_field", path: "conversation_id" });
  return token;
}

// --- the context --------------------------------------------------------------------------

function wakeContext(d: Document): Record<string, unknown> {
  const givenId = messageIdField(d, "id");
  const givenMessageId = messageIdField(d, "message_id");
  const time = createdAt(d);
  const conversation = conversationId(d);
  const id = resolveMessageId(givenId, givenMessageId);
  const type = oneOf(d["conversation_type"], ["dm", "group", "thread"]) ?? "dm";
  const senderType = oneOf(d["sender_type"], ["human", "agent", "system"]) ?? "human";
  const target = replyTarget(d, type, senderType, conversation);
  const reason = oneOf(d["reason"], [
    "mention",
    "assignment",
    "dm",
    "ambient",
    "thread_follow",
    "reply_follow",
    "manual",
  ]);
  const seq = wholeNumberOf(d["seq"], 0);
  const body = multiLine(textOf(d["text"]) ?? "");
  const charter = multiLine(textOf(d["conversation_charter"]) ?? "");
  const quote = quoteOf(d);
  const group = type === "group" ? groupOf(d) : null;
  return {
    cli: CLI,
    charters: list(charter === "" ? null : { text: charter }),
    quotes: list(quote === null ? null : { kind: quote.kind, ref: quote.ref }),
    snippets: list(quote?.snippet ?? null),
    fetches: list(quote?.fetch ?? null),
    target,
    msg: id,
    seq: seq === null ? "" : ` seq=${seq}`,
    time,
    type: senderType,
    reason:
      reason === null ? "" : ` reason=${reason === "thread_follow" ? "reply_follow" : reason}`,
    sender: senderHandle(d, senderType) ?? "unknown",
    task: taskSuffix(d),
    reactions: reactionsSuffix(d),
    bodies: list(body === "" ? null : { text: body }),
    attachments: attachmentsOf(d),
    groups: list(group === null ? null : {}),
    names: list(group?.name ?? null),
    purposes: list(group?.purpose ?? null),
  };
}

function senderHandle(d: Document, senderType: string): string | null {
  const display = trimWhiteSpace(textOf(d["sender_display_name"]) ?? "");
  if (SAFE_TOKEN.test(display)) return display;
  const user = tokenOf(d["sender_user_id"]);
  const agent = tokenOf(d["sender_agent_id"]);
  return senderType === "agent" ? (agent ?? user) : (user ?? agent);
}

/** `conversation_name`, or `conversation_display_name` when the name is absent or null. */
function conversationName(d: Document): string | null {
  return textOf(d["conversation_name"]) ?? textOf(d["conversation_display_name"]);
}

function replyTarget(d: Document, type: string, senderType: string, conversation: string): string {
  const handle = senderHandle(d, senderType);
  const direct = handle === null ? `dm:${conversation}` : `dm:@${handle}`;
  const name = trimWhiteSpace(conversationName(d) ?? "");
  const group = `#${SAFE_TOKEN.test(name) ? name : conversation}`;
  if (type === "dm") return direct;
  if (type === "group") return group;
  const parent = oneOf(d["thread_parent_type"], ["group", "dm"]) === "dm" ? direct : group;
  const root = tokenOf(d["thread_root_message_id"]);
  return root === null ? parent : `${parent}:${root}`;
}

function taskSuffix(d: Document): string {
  const number = wholeNumberOf(d["task_number"], 1);
  if (number === null) return "";
  const status =
    oneOf(d["task_status"], ["todo", "in_progress", "in_review", "done", "canceled"]) ?? "todo";
  const parts = [`task #${number} status=${status}`];
  const agentId = tokenOf(d["task_assignee_agent_id"]);
  const userId = tokenOf(d["task_assignee_user_id"]);
  const declared = oneOf(d["task_assignee_type"], ["agent", "user"]);
  const kind = declared ?? (agentId !== null ? "agent" : userId !== null ? "user" : null);
  const assignee = kind === "agent" ? agentId : kind === "user" ? userId : null;
  if (assignee !== null) parts.push(`assignee=${kind ?? ""}:${assignee}`);
  const title = singleLine(textOf(d["task_title"]) ?? "");
  if (title !== "") parts.push(`title=${jsonString(title)}`);
  return ` [${parts.join(" ")}]`;
}

function reactionsSuffix(d: Document): string {
  const value = d["reactions_summary"];
  const entries = (Array.isArray(value) ? (value as unknown[]) : []).flatMap((entry) => {
    const line = singleLine(textOf(entry) ?? "");
    return line === "" || REACTION_DELIMITER.test(line.normalize("NFKC")) ? [] : [line];
  });
  return entries.length === 0 ? "" : ` [reactions: ${entries.join("; ")}]`;
}

interface QuoteView {
  readonly kind: string;
  readonly ref: string;
  readonly snippet: { readonly text: string } | null;
  readonly fetch: { readonly command: string } | null;
}

function quoteOf(d: Document): QuoteView | null {
  const given = d["message_metadata"];
  const metadata = given === undefined || given === null ? d["metadata"] : given;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return null;
  const quote = (metadata as Document)["quote"];
  if (typeof quote !== "object" || quote === null || Array.isArray(quote)) return null;
  const q = quote as Document;
  const kind = trimWhiteSpace(textOf(q["kind"]) ?? "");
  const ref = trimWhiteSpace(textOf(q["ref"]) ?? "");
  if (kind === "" || ref === "") return null;
  const snippet = singleLine(textOf(q["snippet"]) ?? "");
  const commands: Readonly<Record<string, string>> = {
    message: `${CLI} message read --around ${ref}`,
    briefing: `${CLI} briefing get ${ref}`,
    dashboard: `${CLI} dashboard get --target "#${ref}"`,
  };
  const command = isSafeArgument(ref) && Object.hasOwn(commands, kind) ? commands[kind] : undefined;
  return {
    kind: bareOrJson(singleLine(kind)),
    ref: isSafeArgument(ref) ? ref : jsonString(singleLine(ref)),
    snippet: snippet === "" ? null : { text: snippet },
    fetch: command === undefined ? null : { command },
  };
}

function groupOf(
  d: Document,
): { name: { text: string } | null; purpose: { text: string } | null } | null {
  const name = singleLine(conversationName(d) ?? "");
  const purpose = singleLine(textOf(d["conversation_description"]) ?? "");
  if (name === "" && purpose === "") return null;
  return {
    name: name === "" ? null : { text: bareOrJson(name) },
    purpose: purpose === "" ? null : { text: purpose },
  };
}

/** The usable attachments in order: objects whose `id` is a safe token not starting with `-`. */
function attachmentsOf(d: Document): { kind: string; name: string; id: string }[] {
  const value = d["attachments"];
  return (Array.isArray(value) ? (value as unknown[]) : []).flatMap((entry) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return [];
    const a = entry as Document;
    const id = textOf(a["id"]);
    if (id === null || !isSafeArgument(id)) return [];
    const type = trimWhiteSpace(textOf(a["content_type"]) ?? "");
    return [
      {
        kind: /^image\//iu.test(type) ? "image" : "file",
        name: jsonString(singleLine(textOf(a["name"]) ?? "")),
        id,
      },
    ];
  });
}
