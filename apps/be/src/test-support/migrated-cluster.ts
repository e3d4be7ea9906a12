import { fileURLToPath } from "node:url";
import { filesIn, migratedPgliteSeeder } from "@talkide/service-kit/testing";
import { openDatabase } from "../db/connect.ts";
import { migrateToLatest } from "../db/migrate.ts";

/**
 * Gives a data directory an embedded database at the backend's latest migration, copied from
 * one made once per run and schema (service-kit's migratedPgliteSeeder). A data directory that
 * already has a database keeps it.
 */
export const seedMigratedCluster = migratedPgliteSeeder({
  name: "be",
  schemaFiles: async () => [
    fileURLToPath(new URL("../db/migrate.ts", import.meta.url)),
    ...(await filesIn(new URL("../db/migrations/", import.meta.url))),
  ],
  async migrate(dataDir) {
    const database = await openDatabase({ databaseUrl: null, dataDir });
    try {
      await migrateToLatest(database.db);
    } finally {
      await database.close();
    }
  },
});
