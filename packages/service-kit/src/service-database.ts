import { lockDataDir, makeDataDirPrivate, type DataDirOwner } from "./data-dir.ts";
import { openDatabase, type OpenDatabase } from "./db/database.ts";
import { migrateToLatest, type MigrationFolder } from "./db/migrate.ts";
import type { Logger } from "./logger.ts";

/**
 * A service's own database, ready for use: the data directory locked to this process, the
 * database (embedded or a server) opened and migrated. `close()` closes the database and then
 * releases the lock; if any step fails, what was already taken is given back before the error
 * is thrown, so a refused start leaves nothing held.
 */
export async function openServiceDatabase<Tables>(options: {
  readonly owner: DataDirOwner;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly migrations: readonly MigrationFolder[];
  readonly logger: Logger;
}): Promise<OpenDatabase<Tables>> {
  const { logger } = options;
  const releaseLock = await lockDataDir(options.dataDir, options.owner);
  let database: OpenDatabase<Tables>;
  try {
    database = await openDatabase<Tables>({
      databaseUrl: options.databaseUrl,
      dataDir: options.dataDir,
      onConnectionError: (error) => {
        logger.warn({ err: error }, "a database connection failed; it will be replaced");
      },
    });
  } catch (error) {
    await releaseLock().catch(() => undefined);
    throw error;
  }
  const close = async () => {
    await database.close().catch(() => undefined);
    await releaseLock().catch(() => undefined);
  };
  try {
    const applied = await migrateToLatest(database.db, options.migrations);
    if (applied.length > 0) logger.info({ migrations: applied }, "database migrated");
    // The embedded database writes some files with modes of its own at start (its relation
    // cache): taken back to 0600 once it is up.
    await makeDataDirPrivate(options.dataDir);
  } catch (error) {
    await close();
    throw error;
  }
  return { ...database, close };
}
