import type { Kysely } from "kysely";
import { sql } from "kysely";

/**
 * A fallback of the CLI during the turn that makes every later request of its session heavier
 * (issue 28, part 5), as the backend records it (its migration 0012): `tool_search_off` when a
 * gateway refused deferred tools and Claude Code turned tool search off for the session, seen in
 * the lines the turn appended to the session's transcript (`cliFallbackOfTurn` of
 * `@talkide/claude-cli`). Null: none seen, and for every turn before this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .addColumn("cli_fallback", "text", (column) =>
      column.check(sql`cli_fallback IN ('tool_search_off')`),
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("turns").dropColumn("cli_fallback").execute();
}
