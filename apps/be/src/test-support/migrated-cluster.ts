import { fileURLToPath } from "node:url";
import { GATEWAY_MIGRATIONS } from "@talkide/gateway";
import { ENGINE_MIGRATIONS } from "@talkide/turn-engine";
import { filesIn, migratedPgliteSeeder } from "@talkide/service-kit/testing";
import { WorkQueue } from "@talkide/work-queue";
import { QUEUE_SCHEMA_BUILD } from "@talkide/work-queue/testing";
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
    ...(await filesIn(ENGINE_MIGRATIONS.folder)),
    ...(await filesIn(GATEWAY_MIGRATIONS.folder)),
    QUEUE_SCHEMA_BUILD,
  ],
  async migrate(dataDir) {
    const database = await openDatabase({ databaseUrl: null, dataDir });
    try {
      await migrateToLatest(database.db);
      // The work queue's tables too: pg-boss's install is about 0.15 s of WebAssembly a start.
      if (database.queueConnection.kind === "embedded") {
        await WorkQueue.install(database.queueConnection.pglite);
      }
    } finally {
      await database.close();
    }
  },
});
