import type { ColumnType, Generated, Kysely, Selectable } from "kysely";

/**
 * The local message hub's tables (all prefixed `hub_`), in the hub's own database. Agents are
 * known by the id their daemon gives them; whether an agent's turn is running is the
 * daemon's to say (see `turn-credentials.ts`).
 */

type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

export const MEMBER_KINDS = ["human", "agent"] as const;
export type MemberKind = (typeof MEMBER_KINDS)[number];

export const CONVERSATION_KINDS = ["group", "dm", "thread"] as const;
export type ConversationKind = (typeof CONVERSATION_KINDS)[number];

export const ROLES = ["owner", "admin", "member"] as const;
export type Role = (typeof ROLES)[number];

export const TASK_STATUSES = ["todo", "in_progress", "in_review", "done", "canceled"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const ROUTING_REASONS = ["mention", "assignment", "dm", "ambient", "thread_follow"] as const;
export type RoutingReason = (typeof ROUTING_REASONS)[number];

export interface HubMembersTable {
  id: string;
  /** As the member chose it (safe charset, NFC). */
  handle: string;
  /** NFC + lower case: handles are unique and mentioned case-insensitively. */
  handle_key: string;
  kind: MemberKind;
  /** The id its daemon knows an agent member by; null for humans. */
  agent_id: string | null;
  created_at: Generated<Date>;
}

export interface HubConversationsTable {
  id: string;
  kind: ConversationKind;
  /** Groups only. */
  name: string | null;
  name_key: string | null;
  description: string | null;
  /** Groups and DMs; a thread uses its parent's. */
  charter: string | null;
  /** DMs only: the two member ids, sorted and joined, so a pair has one DM. */
  dm_key: string | null;
  /** Threads only. */
  parent_id: string | null;
  root_message_id: string | null;
  last_seq: Generated<number>;
  last_task_number: Generated<number>;
  created_at: Generated<Date>;
}

export interface HubConversationMembersTable {
  conversation_id: string;
  member_id: string;
  role: Role;
  joined_at: Generated<Date>;
}

export interface HubMessagesTable {
  id: string;
  conversation_id: string;
  seq: number;
  sender_id: string;
  body: string;
  quote_message_id: string | null;
  created_at: Generated<Date>;
  task_number: number | null;
  task_status: TaskStatus | null;
  task_assignee_id: string | null;
  task_title: string | null;
}

export interface HubAttachmentsTable {
  id: string;
  message_id: string;
  position: number;
  file_name: string;
  size_bytes: number;
  sha256: string;
  content: Uint8Array;
  created_at: Generated<Date>;
}

export interface HubReactionsTable {
  message_id: string;
  member_id: string;
  emoji: string;
  created_at: Generated<Date>;
}

export interface HubTokensTable {
  id: string;
  member_id: string;
  /** sha256 hex; the token itself is shown once. */
  token_hash: string;
  created_at: Generated<Date>;
  revoked_at: NullableTimestamp;
}

export const OUTBOX_STATES = ["pending", "accepted", "failed"] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

/**
 * Deliveries owed to agents, written in the same transaction as the message: a crash after
 * the message is stored cannot lose its routing; the daemon's intake is idempotent, so
 * handing one over twice is harmless.
 */
export interface HubOutboxTable {
  id: Generated<number>;
  message_id: string;
  recipient_id: string;
  reason: RoutingReason;
  state: Generated<OutboxState>;
  error: string | null;
  created_at: Generated<Date>;
  processed_at: NullableTimestamp;
}

// A type alias, not an interface: Kysely's `withTables` wants an index-compatible record.
export type HubTables = {
  hub_members: HubMembersTable;
  hub_conversations: HubConversationsTable;
  hub_conversation_members: HubConversationMembersTable;
  hub_messages: HubMessagesTable;
  hub_attachments: HubAttachmentsTable;
  hub_reactions: HubReactionsTable;
  hub_tokens: HubTokensTable;
  hub_outbox: HubOutboxTable;
};

export type HubDb = Kysely<HubTables>;

export type MemberRow = Selectable<HubMembersTable>;
export type ConversationRow = Selectable<HubConversationsTable>;
export type MessageRow = Selectable<HubMessagesTable>;
