import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * A session's stored transcript in parts: each successful turn appends what Claude Code added
 * to the file (a few kilobytes) instead of writing the whole transcript again (hundreds of
 * kilobytes after a few dozen turns, and the largest cost of a warm turn's bookkeeping).
 * - `agent_session_transcript_parts`: the parts, in order; the transcript is their
 *   concatenation.
 * - `agent_session_transcripts.content_length` (UTF-16 code units, as JavaScript and the JVM
 *   count) and `content_sha256` (hex, of the UTF-8 bytes): what is stored, so the next turn
 *   can check that the file still begins with it before appending. Null means unknown: the
 *   next turn stores the whole file again.
 * A transcript stored before this migration becomes its first part, with both unknown.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("agent_session_transcript_parts")
    .addColumn("agent_session_id", "uuid", (c) =>
      c.notNull().references("agent_session_transcripts.agent_session_id").onDelete("cascade"),
    )
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    /** The successful turn that stored this part. */
    .addColumn("turn_id", "uuid", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint("agent_session_transcript_parts_pkey", ["agent_session_id", "seq"])
    .execute();
  await sql`
    INSERT INTO agent_session_transcript_parts (agent_session_id, seq, content, turn_id)
    SELECT agent_session_id, 1, content, turn_id FROM agent_session_transcripts`.execute(db);
  await db.schema
    .alterTable("agent_session_transcripts")
    .dropColumn("content")
    .addColumn("content_length", "integer")
    .addColumn("content_sha256", "text")
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("agent_session_transcripts")
    .addColumn("content", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await sql`
    UPDATE agent_session_transcripts t SET content = COALESCE((
      SELECT string_agg(p.content, '' ORDER BY p.seq) FROM agent_session_transcript_parts p
      WHERE p.agent_session_id = t.agent_session_id), '')`.execute(db);
  await db.schema
    .alterTable("agent_session_transcripts")
    .dropColumn("content_length")
    .dropColumn("content_sha256")
    .execute();
  await db.schema.dropTable("agent_session_transcript_parts").execute();
}

export const transcriptParts: Migration = { up, down };
