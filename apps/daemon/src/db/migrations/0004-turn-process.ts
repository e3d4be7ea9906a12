import type { Kysely } from "kysely";

/**
 * How each turn's Claude Code process started (issue 15, warm turns): `process` is `warm` (the
 * conversation's process kept alive since its previous turn) or `cold` (a new one), null when
 * none was started; `cold_reason` says why a cold turn did not run warm; `process_marker` is
 * the `TICLAWK_TURN_ID` its processes carry in their environment, the id of the turn that
 * started the process, so a dead daemon's warm-turn leftovers are found too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .addColumn("process", "text")
    .addColumn("cold_reason", "text")
    .addColumn("process_marker", "text")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .dropColumn("process")
    .dropColumn("cold_reason")
    .dropColumn("process_marker")
    .execute();
}
