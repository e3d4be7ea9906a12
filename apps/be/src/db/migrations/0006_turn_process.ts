import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * How each turn's Claude Code process started (issue 15, warm turns):
 * - `turns.process`: `warm` (a process kept alive from the project's previous turn) or `cold`
 *   (a new process); null when nothing was started.
 * - `turns.cold_reason`: why a cold turn did not run warm (`context_changed`, `session_moved`,
 *   `idle_timeout`, …); null for warm turns.
 * - `turns.process_marker`: the `TALKIDE_TURN_ID` the process carries in its environment, which
 *   is the id of the turn that started it: a warm turn's processes carry an earlier turn's id,
 *   so finding a dead instance's leftovers needs this, not the turn's own id.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .addColumn("process", "text")
    .addColumn("cold_reason", "text")
    .addColumn("process_marker", "text")
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .dropColumn("process")
    .dropColumn("cold_reason")
    .dropColumn("process_marker")
    .execute();
}

export const turnProcess: Migration = { up, down };
