import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database } from "../db/connect.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { seedMigratedCluster } from "./migrated-cluster.ts";

export interface EmbeddedTestDatabase {
  /** The data directory; tests may put workspaces and config dirs beneath it. */
  readonly dir: string;
  readonly database: Database;
}

/**
 * An embedded database at the latest migration for the test file's suites: opened before the
 * first test, closed and removed after the last. Read its fields inside tests and hooks.
 */
export function useMigratedEmbeddedDatabase(prefix: string): EmbeddedTestDatabase {
  let opened: { dir: string; database: Database } | null = null;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    await seedMigratedCluster(dir);
    const database = await openDatabase({ databaseUrl: null, dataDir: dir });
    opened = { dir, database };
    await migrateToLatest(database.db);
  });
  afterAll(async () => {
    if (opened === null) return;
    await opened.database.close();
    rmSync(opened.dir, { recursive: true, force: true });
  });
  const current = (): { dir: string; database: Database } => {
    if (opened === null) throw new Error("the test database is opened in beforeAll");
    return opened;
  };
  return {
    get dir() {
      return current().dir;
    },
    get database() {
      return current().database;
    },
  };
}
