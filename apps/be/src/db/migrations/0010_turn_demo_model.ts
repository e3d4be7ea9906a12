import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * The answer the local demo model gave to every turn before this migration: the only trace a
 * stored turn has of having been answered by it.
 */
export const OLD_DEMO_MODEL_ANSWER =
  "(Local demo model — not Claude.) Your message reached Mara through the real Claude Code CLI. Set ANTHROPIC_API_KEY and restart the service for real answers.";

/**
 * `turns.demo_model`: the instance that ran the turn had the local demo model configured (no
 * ANTHROPIC_API_KEY), so its answer and its cost are not Claude's and not real money. Stored per
 * turn, not derived from the running service's configuration: a turn answered with a real key
 * stays real after a restart without one, and the other way round.
 *
 * Existing turns: nothing recorded which model answered them. Those whose stored answer is the
 * old demo model's fixed sentence are marked; every other existing turn is left `false`.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("turns")
    .addColumn("demo_model", "boolean", (column) => column.notNull().defaultTo(false))
    .execute();
  await sql`UPDATE turns SET demo_model = true WHERE result_text = ${OLD_DEMO_MODEL_ANSWER}`.execute(
    db,
  );
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("turns").dropColumn("demo_model").execute();
}

export const turnDemoModel: Migration = { up, down };
