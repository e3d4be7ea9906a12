import { sql, type Kysely } from "kysely";

/**
 * The local message hub. Invariants live in the schema: one handle per member and one DM per
 * pair (case-folded keys), one thread per root message, per-conversation sequence and task
 * numbers without gaps or duplicates, and a task status only from the lifecycle.
 *
 * Written when the hub lived in the daemon's database; since it has its own, an agent
 * member's `agent_id` is the id its daemon knows it by (no foreign key into a daemon table)
 * and tokens belong to members only (an agent's turn shows its daemon's turn credential).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("hub_members")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("handle", "text", (c) => c.notNull())
    .addColumn("handle_key", "text", (c) => c.notNull().unique())
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('human', 'agent')`))
    .addColumn("agent_id", "text", (c) => c.unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("hub_members_agent_binding", sql`(kind = 'agent') = (agent_id is not null)`)
    .execute();

  await db.schema
    .createTable("hub_conversations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('group', 'dm', 'thread')`))
    .addColumn("name", "text")
    .addColumn("name_key", "text", (c) => c.unique())
    .addColumn("description", "text")
    .addColumn("charter", "text")
    .addColumn("dm_key", "text", (c) => c.unique())
    .addColumn("parent_id", "text", (c) => c.references("hub_conversations.id").onDelete("cascade"))
    .addColumn("root_message_id", "text", (c) => c.unique())
    .addColumn("last_seq", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_task_number", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      "hub_conversations_shape",
      sql`(kind = 'group' and name is not null and name_key is not null and dm_key is null and parent_id is null)
       or (kind = 'dm' and name is null and dm_key is not null and parent_id is null)
       or (kind = 'thread' and name is null and dm_key is null and parent_id is not null
           and root_message_id is not null and charter is null)`,
    )
    .execute();

  await db.schema
    .createTable("hub_conversation_members")
    .addColumn("conversation_id", "text", (c) =>
      c.notNull().references("hub_conversations.id").onDelete("cascade"),
    )
    .addColumn("member_id", "text", (c) =>
      c.notNull().references("hub_members.id").onDelete("cascade"),
    )
    .addColumn("role", "text", (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn("joined_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("hub_conversation_members_pk", ["conversation_id", "member_id"])
    .execute();
  await sql`create index hub_conversation_members_by_member on hub_conversation_members (member_id)`.execute(
    db,
  );

  await db.schema
    .createTable("hub_messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("conversation_id", "text", (c) =>
      c.notNull().references("hub_conversations.id").onDelete("cascade"),
    )
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("sender_id", "text", (c) => c.notNull().references("hub_members.id"))
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("quote_message_id", "text", (c) =>
      c.references("hub_messages.id").onDelete("set null"),
    )
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("task_number", "integer")
    .addColumn("task_status", "text", (c) =>
      c.check(sql`task_status in ('todo', 'in_progress', 'in_review', 'done', 'canceled')`),
    )
    .addColumn("task_assignee_id", "text", (c) => c.references("hub_members.id"))
    .addColumn("task_title", "text")
    .addUniqueConstraint("hub_messages_seq_unique", ["conversation_id", "seq"])
    .addUniqueConstraint("hub_messages_task_number_unique", ["conversation_id", "task_number"])
    .addCheckConstraint(
      "hub_messages_task_shape",
      sql`(task_number is null and task_status is null and task_assignee_id is null and task_title is null)
       or (task_number is not null and task_status is not null)`,
    )
    .execute();

  await db.schema
    .createTable("hub_attachments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("message_id", "text", (c) =>
      c.notNull().references("hub_messages.id").onDelete("cascade"),
    )
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("size_bytes", "integer", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("content", "bytea", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("hub_attachments_position_unique", ["message_id", "position"])
    .execute();

  await db.schema
    .createTable("hub_reactions")
    .addColumn("message_id", "text", (c) =>
      c.notNull().references("hub_messages.id").onDelete("cascade"),
    )
    .addColumn("member_id", "text", (c) =>
      c.notNull().references("hub_members.id").onDelete("cascade"),
    )
    .addColumn("emoji", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("hub_reactions_pk", ["message_id", "member_id", "emoji"])
    .execute();

  await db.schema
    .createTable("hub_tokens")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("member_id", "text", (c) =>
      c.notNull().references("hub_members.id").onDelete("cascade"),
    )
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("revoked_at", "timestamptz")
    .execute();

  await db.schema
    .createTable("hub_outbox")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("message_id", "text", (c) =>
      c.notNull().references("hub_messages.id").onDelete("cascade"),
    )
    .addColumn("recipient_id", "text", (c) =>
      c.notNull().references("hub_members.id").onDelete("cascade"),
    )
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) =>
      c
        .notNull()
        .defaultTo("pending")
        .check(sql`state in ('pending', 'accepted', 'failed')`),
    )
    .addColumn("error", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("processed_at", "timestamptz")
    .addUniqueConstraint("hub_outbox_once", ["message_id", "recipient_id"])
    .execute();
  await sql`create index hub_outbox_pending on hub_outbox (id) where state = 'pending'`.execute(db);

  // The one group every member joins by default (the local loop starts here).
  await sql`insert into hub_conversations (id, kind, name, name_key, description)
    values ('g-general', 'group', 'general', 'general', 'Everyone on this hub.')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "hub_outbox",
    "hub_tokens",
    "hub_reactions",
    "hub_attachments",
    "hub_messages",
    "hub_conversation_members",
    "hub_conversations",
    "hub_members",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
