/**
 * The delivery document: one inbound message as the daemon receives it from upstream, in the
 * seed's snake_case shape. `parseDelivery` reads it the way contract 4.2 (v2) asks: _degrade,
 * never drop_. A delivery is refused only when it cannot be addressed or dated (no usable
 * message id, conversation id or `created_at`); every other field that fails its check is
 * read as absent, or kept in a form the wake prompt can show safely, and the message still
 * reaches the agent. Unknown upstream fields are dropped here, so they can never be copied
 * into a prompt.
 */
import {
  isRfc3339Timestamp,
  toSingleLineText,
  toWellFormedNfc,
  trimWhiteSpace,
} from "@talkide/text";
import { z } from "zod";
import { isSafeArgument, isSafeToken, SAFE_TOKEN_DESCRIPTION } from "../text/safe-token.ts";
import { formatPath, isAbsentAt, type PathSegment } from "./path.ts";

export const CONVERSATION_TYPES = ["dm", "group", "thread"] as const;
export const THREAD_PARENT_TYPES = ["group", "dm"] as const;
export const SENDER_TYPES = ["human", "agent", "system"] as const;
export const DELIVERY_REASONS = [
  "mention",
  "assignment",
  "dm",
  "ambient",
  "thread_follow",
  "reply_follow",
  "manual",
] as const;
export const TASK_STATUSES = ["todo", "in_progress", "in_review", "done", "canceled"] as const;
export const TASK_ASSIGNEE_TYPES = ["agent", "user"] as const;
/** The quote kinds that have a fetch command; a quote of any other kind is shown without one. */
export const QUOTE_KINDS = ["message", "briefing", "dashboard"] as const;

export type ConversationType = (typeof CONVERSATION_TYPES)[number];
export type ThreadParentType = (typeof THREAD_PARENT_TYPES)[number];
export type SenderType = (typeof SENDER_TYPES)[number];
export type DeliveryReason = (typeof DELIVERY_REASONS)[number];
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type TaskAssigneeType = (typeof TASK_ASSIGNEE_TYPES)[number];
export type QuoteKind = (typeof QUOTE_KINDS)[number];

/** A file that came with the message; the agent fetches it by id with the CLI. */
export interface Attachment {
  /** A safe token that does not start with `-` (it stands unquoted in a command). */
  readonly id: string;
  /** The file's name as the sender gave it; `""` when none. */
  readonly name: string;
  /** The media type as given, e.g. `image/png`; null when none. */
  readonly content_type: string | null;
}

export interface Quote {
  /** Trimmed, never blank; a kind outside `QUOTE_KINDS` is kept and shown without a fetch hint. */
  readonly kind: string;
  /** Trimmed, never blank; a safe argument gets a fetch hint, anything else is shown quoted. */
  readonly ref: string;
  readonly snippet: string | null;
}

/**
 * A checked delivery. Strings are well-formed (an unpaired surrogate became U+FFFD) and in NFC.
 * Optional fields are `null` when absent or unusable, and `id` is the message id whichever of
 * `id` / `message_id` carried it. User text is kept as written here; the wake prompt
 * normalizes and quotes it when it renders.
 */
export interface Delivery {
  readonly id: string;
  /** Decimal digits of a non-negative integer; null when absent or not such a number. */
  readonly seq: string | null;
  readonly created_at: string;
  /** `dm` when upstream gave none or an unknown one (the seed's default). */
  readonly conversation_type: ConversationType;
  /** Only for threads: whether the thread hangs off a group message (default) or a DM message. */
  readonly thread_parent_type: ThreadParentType | null;
  readonly conversation_id: string;
  /** `conversation_name`, or the seed's fallback `conversation_display_name`. */
  readonly conversation_name: string | null;
  readonly conversation_description: string | null;
  readonly conversation_charter: string | null;
  /** A safe token; a thread without one is answered in its parent conversation. */
  readonly thread_root_message_id: string | null;
  /** `human` when upstream gave none or an unknown one (the seed's default). */
  readonly sender_type: SenderType;
  readonly sender_display_name: string | null;
  readonly sender_user_id: string | null;
  readonly sender_agent_id: string | null;
  readonly reason: DeliveryReason | null;
  readonly text: string;
  /** Decimal digits of a positive integer; null when the message is no task. */
  readonly task_number: string | null;
  /** null when absent or outside the lifecycle; the task suffix then shows the default `todo`. */
  readonly task_status: TaskStatus | null;
  readonly task_assignee_type: TaskAssigneeType | null;
  readonly task_assignee_agent_id: string | null;
  readonly task_assignee_user_id: string | null;
  readonly task_title: string | null;
  /** Only the usable entries: one line, not blank, without `[`, `]` or `;`. */
  readonly reactions_summary: readonly string[];
  /** `message_metadata`, or the seed's fallback `metadata` when it is absent. */
  readonly message_metadata: { readonly quote: Quote | null } | null;
  /** Only the usable attachments (an object with a safe id), in order. */
  readonly attachments: readonly Attachment[];
}

export type DeliveryErrorCode = "missing_field" | "invalid_field" | "conflicting_field";

/** A refused delivery: a stable code and a path; the message never repeats the value. */
export class DeliveryError extends Error {
  readonly code: DeliveryErrorCode;
  readonly path: string;

  constructor(code: DeliveryErrorCode, path: string, message: string) {
    super(path === "" ? message : `${path}: ${message}`);
    this.name = "DeliveryError";
    this.code = code;
    this.path = path;
  }
}

type RefinementContext = z.core.$RefinementCtx;

function fault(
  context: RefinementContext,
  code: DeliveryErrorCode,
  message: string,
  path?: PathSegment[],
): void {
  context.addIssue({ code: "custom", message, params: { code }, ...(path ? { path } : {}) });
}

/** Any string, made well-formed (an unpaired surrogate becomes U+FFFD) and converted to NFC. */
const text = z.string().transform((value) => toWellFormedNfc(value));

/** An id the delivery cannot do without: a safe token, or the delivery is refused. */
const requiredToken = text.transform((value, context) => {
  if (!isSafeToken(value)) {
    fault(context, "invalid_field", `must be ${SAFE_TOKEN_DESCRIPTION}`);
    return z.NEVER;
  }
  return value;
});

const timestamp = text.transform((value, context) => {
  // Upper-case `T` and `Z` only here, unlike CLAUDE.md's createdAt (spec/wake-prompt.md).
  if (!isRfc3339Timestamp(value, { letters: "upper-case" })) {
    fault(context, "invalid_field", "must be an RFC 3339 timestamp such as 2026-05-02T14:32:11Z");
    return z.NEVER;
  }
  return value;
});

/** An optional field: whatever fails its check reads as absent (null). */
function lenient<T extends z.ZodType>(schema: T) {
  return schema
    .nullish()
    .transform((value) => value ?? null)
    .catch(null);
}

/** An optional id or handle: NFC, then the safe charset, else absent. Ids are never trimmed. */
const optionalToken = lenient(text.refine(isSafeToken));

const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

/** A whole number ≥ min, as a JSON number or as a decimal string (for 64-bit columns), or absent. */
function wholeNumber(min: number) {
  return lenient(
    z
      .union([z.number(), z.string()])
      .transform((value) =>
        typeof value === "number"
          ? Number.isSafeInteger(value)
            ? String(value)
            : null
          : DECIMAL.test(value)
            ? value
            : null,
      )
      .refine((digits) => digits !== null && BigInt(digits) >= BigInt(min)),
  );
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return lenient(z.enum(values));
}

const FORBIDDEN_IN_REACTION = /[[\];]/;

/** The usable reaction entries, in order: one line, not blank, no `[`, `]` or `;` (also NFKC). */
const reactions = lenient(z.array(z.unknown())).transform((entries) =>
  (entries ?? []).flatMap((entry) => {
    if (typeof entry !== "string") return [];
    const line = toSingleLineText(toWellFormedNfc(entry));
    return line === "" || FORBIDDEN_IN_REACTION.test(line.normalize("NFKC")) ? [] : [line];
  }),
);

/** Kind and ref of a quote: trimmed; blank reads as absent. */
const quotePart = lenient(text.transform(trimWhiteSpace).refine((value) => value !== ""));

const quoteSchema = lenient(
  z.object({ kind: quotePart, ref: quotePart, snippet: lenient(text) }).transform(
    // The seed shows a quote only when it has both a kind and a ref.
    ({ kind, ref, snippet }): Quote | null =>
      kind === null || ref === null ? null : { kind, ref, snippet },
  ),
);

const metadataSchema = lenient(z.object({ quote: quoteSchema }));

const attachmentSchema = z.object({
  id: text.refine(isSafeArgument),
  name: lenient(text),
  content_type: lenient(text.transform(trimWhiteSpace).refine((value) => value !== "")),
});

/** The usable attachments, in order: objects whose id can stand in a command. */
const attachments = lenient(z.array(z.unknown())).transform((entries) =>
  (entries ?? []).flatMap((entry): Attachment[] => {
    const parsed = attachmentSchema.safeParse(entry);
    if (!parsed.success) return [];
    const { id, name, content_type } = parsed.data;
    return [{ id, name: name ?? "", content_type }];
  }),
);

const rawDeliverySchema = z.object({
  id: requiredToken.nullish(),
  message_id: requiredToken.nullish(),
  seq: wholeNumber(0),
  created_at: timestamp,
  conversation_type: oneOf(CONVERSATION_TYPES),
  thread_parent_type: oneOf(THREAD_PARENT_TYPES),
  conversation_id: requiredToken,
  conversation_name: lenient(text),
  conversation_display_name: lenient(text),
  conversation_description: lenient(text),
  conversation_charter: lenient(text),
  thread_root_message_id: optionalToken,
  sender_type: oneOf(SENDER_TYPES),
  sender_display_name: lenient(text),
  sender_user_id: optionalToken,
  sender_agent_id: optionalToken,
  reason: oneOf(DELIVERY_REASONS),
  text: lenient(text),
  task_number: wholeNumber(1),
  task_status: oneOf(TASK_STATUSES),
  task_assignee_type: oneOf(TASK_ASSIGNEE_TYPES),
  task_assignee_agent_id: optionalToken,
  task_assignee_user_id: optionalToken,
  task_title: lenient(text),
  reactions_summary: reactions,
  message_metadata: z.unknown().optional(),
  metadata: metadataSchema,
  attachments,
});

type RawDelivery = z.output<typeof rawDeliverySchema>;

function resolveMessageId(raw: RawDelivery, context: RefinementContext): string | null {
  const id = raw.id ?? null;
  const messageId = raw.message_id ?? null;
  if (id !== null && messageId !== null && id !== messageId) {
    fault(context, "conflicting_field", "differs from id; send one message id", ["message_id"]);
    return null;
  }
  const resolved = id ?? messageId;
  if (resolved === null)
    fault(context, "missing_field", "a message id (id or message_id) is required", ["id"]);
  return resolved;
}

/** `message_metadata` when upstream sent one (null or absent counts as none), else `metadata`. */
function resolveMetadata(raw: RawDelivery): { readonly quote: Quote | null } | null {
  if (raw.message_metadata === undefined || raw.message_metadata === null) return raw.metadata;
  return metadataSchema.parse(raw.message_metadata);
}

/** The assignee type, and its id only when it matches the type (else no assignee). */
function resolveAssignee(raw: RawDelivery) {
  const type =
    raw.task_assignee_type ??
    (raw.task_assignee_agent_id !== null
      ? "agent"
      : raw.task_assignee_user_id !== null
        ? "user"
        : null);
  const agentId = type === "agent" ? raw.task_assignee_agent_id : null;
  const userId = type === "user" ? raw.task_assignee_user_id : null;
  return agentId === null && userId === null
    ? { task_assignee_type: null, task_assignee_agent_id: null, task_assignee_user_id: null }
    : { task_assignee_type: type, task_assignee_agent_id: agentId, task_assignee_user_id: userId };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** The zod schema of a delivery document; its output is a checked, frozen `Delivery`. */
export const deliverySchema = rawDeliverySchema.transform((raw, context): Delivery => {
  const id = resolveMessageId(raw, context);
  if (id === null) return z.NEVER;
  const conversationType = raw.conversation_type ?? "dm";
  const isThread = conversationType === "thread";
  // Field by field, so that nothing the schema did not name can ever be carried along.
  return deepFreeze({
    id,
    seq: raw.seq,
    created_at: raw.created_at,
    conversation_type: conversationType,
    thread_parent_type: isThread ? raw.thread_parent_type : null,
    conversation_id: raw.conversation_id,
    conversation_name: raw.conversation_name ?? raw.conversation_display_name,
    conversation_description: raw.conversation_description,
    conversation_charter: raw.conversation_charter,
    thread_root_message_id: isThread ? raw.thread_root_message_id : null,
    sender_type: raw.sender_type ?? "human",
    sender_display_name: raw.sender_display_name,
    sender_user_id: raw.sender_user_id,
    sender_agent_id: raw.sender_agent_id,
    reason: raw.reason,
    text: raw.text ?? "",
    task_number: raw.task_number,
    task_status: raw.task_status,
    ...resolveAssignee(raw),
    task_title: raw.task_title,
    reactions_summary: raw.reactions_summary,
    message_metadata: resolveMetadata(raw),
    attachments: raw.attachments,
  });
});

const checked = new WeakSet<Delivery>();

function toDeliveryError(issue: z.core.$ZodIssue, input: unknown): DeliveryError {
  const path = issue.path.filter((segment): segment is PathSegment => typeof segment !== "symbol");
  const declared = (issue as { params?: { code?: DeliveryErrorCode } }).params?.code;
  const code = declared ?? (isAbsentAt(input, path) ? "missing_field" : "invalid_field");
  const message =
    code === "missing_field" && declared === undefined ? "is required" : issue.message;
  return new DeliveryError(code, formatPath(path), message);
}

/**
 * Checks a delivery document (already parsed from JSON) and returns the normalized delivery.
 * Throws a `DeliveryError` only when the delivery cannot be addressed or dated: the document
 * is no object, the message id or the conversation id is missing or not a safe token, the two
 * message ids differ, or `created_at` is missing or not an RFC 3339 timestamp. When several
 * of these hold, the first in field order is reported, the same one every time.
 */
export function parseDelivery(input: unknown): Delivery {
  const result = deliverySchema.safeParse(input);
  if (!result.success) {
    const first = result.error.issues[0];
    if (first === undefined) throw new DeliveryError("invalid_field", "", "is not a delivery");
    throw toDeliveryError(first, input);
  }
  checked.add(result.data);
  return result.data;
}

/**
 * The delivery itself when `parseDelivery` produced it (it is frozen, so it cannot have changed
 * since), otherwise the result of checking it now. Every builder goes through this, so a value
 * that skipped `parseDelivery` (a cast, a hand-written object) is still checked.
 */
export function ensureDelivery(delivery: Delivery): Delivery {
  return checked.has(delivery) ? delivery : parseDelivery(delivery);
}
