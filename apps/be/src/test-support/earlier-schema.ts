import type { Kysely } from "kysely";
import { Migrator } from "kysely/migration";
import { MIGRATIONS_FOR_TESTS } from "../db/migrate.ts";

/**
 * The schema an earlier release left: the backend's own migrations named before `first`, run
 * as releases ran them (Kysely's own migrator, without the engine's or the gateway's folders),
 * so a migration test can write that release's rows and then migrate to this one.
 */
export async function migrateBefore<DB>(db: Kysely<DB>, first: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: {
      getMigrations: () =>
        Promise.resolve(
          Object.fromEntries(Object.entries(MIGRATIONS_FOR_TESTS).filter(([name]) => name < first)),
        ),
    },
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) {
    throw new Error(`the schema before ${first} could not be built`, { cause: error });
  }
}
