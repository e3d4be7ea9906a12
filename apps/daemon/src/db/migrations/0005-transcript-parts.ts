import type { Kysely } from "kysely";

/**
 * A session's stored transcript grows by a few lines per turn while the whole of it can reach
 * megabytes, so rewriting it after every turn made storing a result cost as much as the
 * transcript is long. A turn whose daemon stored the previous one appends only the lines it
 * added, as a part: the transcript is `session_transcripts.content` followed by its parts in
 * `seq` order. A full write (another daemon ran the previous turn, the file did not merely
 * grow, or many parts piled up) replaces `content` and deletes the parts, in one statement.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("session_transcript_parts")
    .addColumn("session_id", "uuid", (c) =>
      c.notNull().references("session_transcripts.session_id").onDelete("cascade"),
    )
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    /** The turn whose result added these lines. */
    .addColumn("turn_id", "uuid", (c) => c.notNull())
    .addPrimaryKeyConstraint("session_transcript_parts_pkey", ["session_id", "seq"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("session_transcript_parts").execute();
}
