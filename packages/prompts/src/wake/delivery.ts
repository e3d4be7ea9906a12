/**
 * The delivery document: one inbound message as the daemon receives it from upstream, in the
 * seed's snake_case shape. `parseDelivery` checks every value that can reach the wake prompt
 * (contract 4.2) and returns a normalized, frozen `Delivery`; a delivery that fails a check is
 * rejected with a `DeliveryError` and never rendered. Unknown upstream fields are dropped here,
 * so they can never be copied into a prompt.
 */
import { z } from "zod";
import { isSafeToken, SAFE_TOKEN_DESCRIPTION } from "../text/safe-token.ts";
import { isRfc3339Timestamp } from "../text/timestamp.ts";
import { hasLoneSurrogate, toSingleLineText, trimWhiteSpace } from "../text/unicode.ts";
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
export const QUOTE_KINDS = ["message", "briefing", "dashboard"] as const;

export type ConversationType = (typeof CONVERSATION_TYPES)[number];
export type ThreadParentType = (typeof THREAD_PARENT_TYPES)[number];
export type SenderType = (typeof SENDER_TYPES)[number];
export type DeliveryReason = (typeof DELIVERY_REASONS)[number];
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type TaskAssigneeType = (typeof TASK_ASSIGNEE_TYPES)[number];
export type QuoteKind = (typeof QUOTE_KINDS)[number];

export interface Quote {
  readonly kind: QuoteKind;
  /** Trimmed, never blank; a safe token gets a fetch hint, anything else is shown quoted. */
  readonly ref: string;
  readonly snippet: string | null;
}

/**
 * A checked delivery. Strings are in NFC. Optional fields are `null` when absent, and `id` is
 * the message id whichever of `id` / `message_id` carried it. User text is kept as written
 * here; the wake prompt normalizes and neutralizes it when it renders.
 */
export interface Delivery {
  readonly id: string;
  /** Decimal digits of a non-negative integer. */
  readonly seq: string;
  readonly created_at: string;
  readonly conversation_type: ConversationType;
  /** Only for threads: whether the thread hangs off a group message (default) or a DM message. */
  readonly thread_parent_type: ThreadParentType | null;
  readonly conversation_id: string;
  readonly conversation_name: string | null;
  readonly conversation_description: string | null;
  readonly conversation_charter: string | null;
  readonly thread_root_message_id: string | null;
  readonly sender_type: SenderType;
  readonly sender_display_name: string | null;
  readonly sender_user_id: string | null;
  readonly sender_agent_id: string | null;
  readonly reason: DeliveryReason | null;
  readonly text: string;
  /** Decimal digits of a positive integer. */
  readonly task_number: string | null;
  readonly task_status: TaskStatus | null;
  readonly task_assignee_type: TaskAssigneeType | null;
  readonly task_assignee_agent_id: string | null;
  readonly task_assignee_user_id: string | null;
  readonly task_title: string | null;
  readonly reactions_summary: readonly string[];
  readonly message_metadata: { readonly quote: Quote | null } | null;
}

export type DeliveryErrorCode = "missing_field" | "invalid_field" | "conflicting_field";

/** A rejected delivery: a stable code and a path; the message never repeats the value. */
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

/** Any string: refused if it cannot be UTF-8, otherwise converted to NFC. */
const text = z.string().transform((value, context) => {
  if (hasLoneSurrogate(value)) {
    fault(
      context,
      "invalid_field",
      "holds an unpaired surrogate, which cannot be written as UTF-8",
    );
    return z.NEVER;
  }
  return value.normalize("NFC");
});

/** An id or handle: NFC, then the safe charset. Ids are opaque and never trimmed. */
const token = text.transform((value, context) => {
  if (!isSafeToken(value)) {
    fault(context, "invalid_field", `must be ${SAFE_TOKEN_DESCRIPTION}`);
    return z.NEVER;
  }
  return value;
});

const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

/** A whole number ≥ min, as a JSON number or as a decimal string (for 64-bit columns). */
function wholeNumber(min: number) {
  return z.union([z.number(), z.string()]).transform((value, context) => {
    const digits =
      typeof value === "number"
        ? Number.isSafeInteger(value)
          ? String(value)
          : null
        : DECIMAL.test(value)
          ? value
          : null;
    if (digits === null || BigInt(digits) < BigInt(min)) {
      fault(context, "invalid_field", `must be a whole number of at least ${String(min)}`);
      return z.NEVER;
    }
    return digits;
  });
}

const timestamp = text.transform((value, context) => {
  if (!isRfc3339Timestamp(value)) {
    fault(context, "invalid_field", "must be an RFC 3339 timestamp such as 2026-05-02T14:32:11Z");
    return z.NEVER;
  }
  return value;
});

const FORBIDDEN_IN_REACTION = /[[\];]/;

/** One reaction entry: single line, not blank, and no `[`, `]` or `;` (they delimit the suffix). */
const reactionEntry = text.transform((value, context) => {
  const line = toSingleLineText(value);
  if (line === "") {
    fault(context, "invalid_field", "a reaction entry must not be blank");
    return z.NEVER;
  }
  if (FORBIDDEN_IN_REACTION.test(line.normalize("NFKC"))) {
    fault(context, "invalid_field", "a reaction entry must not contain '[', ']' or ';'");
    return z.NEVER;
  }
  return line;
});

const quoteRef = text.transform((value, context) => {
  const ref = trimWhiteSpace(value);
  if (ref === "") {
    fault(context, "invalid_field", "a quote ref must not be blank");
    return z.NEVER;
  }
  return ref;
});

function nullable<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? null);
}

const quoteSchema = z.object({
  kind: z.enum(QUOTE_KINDS),
  ref: quoteRef,
  snippet: nullable(text),
});

const rawDeliverySchema = z.object({
  id: nullable(token),
  message_id: nullable(token),
  seq: wholeNumber(0),
  created_at: timestamp,
  conversation_type: z.enum(CONVERSATION_TYPES),
  thread_parent_type: nullable(z.enum(THREAD_PARENT_TYPES)),
  conversation_id: token,
  conversation_name: nullable(text),
  conversation_description: nullable(text),
  conversation_charter: nullable(text),
  thread_root_message_id: nullable(token),
  sender_type: z.enum(SENDER_TYPES),
  sender_display_name: nullable(text),
  sender_user_id: nullable(token),
  sender_agent_id: nullable(token),
  reason: nullable(z.union([z.enum(DELIVERY_REASONS), z.literal("")])),
  text: nullable(text),
  task_number: nullable(wholeNumber(1)),
  task_status: nullable(z.enum(TASK_STATUSES)),
  task_assignee_type: nullable(z.enum(TASK_ASSIGNEE_TYPES)),
  task_assignee_agent_id: nullable(token),
  task_assignee_user_id: nullable(token),
  task_title: nullable(text),
  reactions_summary: nullable(z.array(reactionEntry)),
  message_metadata: nullable(z.object({ quote: nullable(quoteSchema) })),
});

type RawDelivery = z.output<typeof rawDeliverySchema>;

function resolveMessageId(raw: RawDelivery, context: RefinementContext): string | null {
  if (raw.id !== null && raw.message_id !== null && raw.id !== raw.message_id) {
    fault(context, "conflicting_field", "differs from id; send one message id", ["message_id"]);
    return null;
  }
  const id = raw.id ?? raw.message_id;
  if (id === null)
    fault(context, "missing_field", "a message id (id or message_id) is required", ["id"]);
  return id;
}

function checkThreadFields(raw: RawDelivery, context: RefinementContext): void {
  if (raw.conversation_type === "thread" && raw.thread_root_message_id === null) {
    fault(context, "missing_field", "a thread delivery needs its root message id", [
      "thread_root_message_id",
    ]);
  }
  if (raw.conversation_type !== "thread" && raw.thread_parent_type !== null) {
    fault(context, "conflicting_field", "is only meaningful for conversation_type thread", [
      "thread_parent_type",
    ]);
  }
}

function checkAssignee(raw: RawDelivery, context: RefinementContext): void {
  if (raw.task_assignee_type === "agent" && raw.task_assignee_agent_id === null) {
    fault(context, "missing_field", "assignee type agent needs task_assignee_agent_id", [
      "task_assignee_agent_id",
    ]);
  }
  if (raw.task_assignee_type === "user" && raw.task_assignee_user_id === null) {
    fault(context, "missing_field", "assignee type user needs task_assignee_user_id", [
      "task_assignee_user_id",
    ]);
  }
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
  checkThreadFields(raw, context);
  checkAssignee(raw, context);
  if (id === null) return z.NEVER;
  // Field by field, so that nothing the schema did not name can ever be carried along.
  return deepFreeze({
    id,
    seq: raw.seq,
    created_at: raw.created_at,
    conversation_type: raw.conversation_type,
    thread_parent_type: raw.thread_parent_type,
    conversation_id: raw.conversation_id,
    conversation_name: raw.conversation_name,
    conversation_description: raw.conversation_description,
    conversation_charter: raw.conversation_charter,
    thread_root_message_id: raw.thread_root_message_id,
    sender_type: raw.sender_type,
    sender_display_name: raw.sender_display_name,
    sender_user_id: raw.sender_user_id,
    sender_agent_id: raw.sender_agent_id,
    reason: raw.reason === "" ? null : raw.reason,
    text: raw.text ?? "",
    task_number: raw.task_number,
    task_status: raw.task_status,
    task_assignee_type: raw.task_assignee_type,
    task_assignee_agent_id: raw.task_assignee_agent_id,
    task_assignee_user_id: raw.task_assignee_user_id,
    task_title: raw.task_title,
    reactions_summary: raw.reactions_summary ?? [],
    message_metadata: raw.message_metadata === null ? null : { quote: raw.message_metadata.quote },
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
 * Checks a delivery document (already parsed from JSON) and returns the normalized delivery,
 * or throws a `DeliveryError`. When a document has several faults, the first in field order
 * is reported, the same one every time.
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
