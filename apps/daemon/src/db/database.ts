import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { PGliteDialect } from "./pglite-dialect.ts";
import type { DaemonTables } from "./schema.ts";

export type DatabaseKind = "pglite" | "postgres";

export interface OpenDatabase {
  readonly db: Kysely<DaemonTables>;
  readonly kind: DatabaseKind;
  close(): Promise<void>;
}

/**
 * Opens the daemon's database: a PostgreSQL server when `databaseUrl` is given, otherwise
 * the embedded PGlite database under `<dataDir>/pglite` (one process at a time; the daemon's
 * lock file guards that).
 */
export async function openDatabase(options: {
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  /** An idle pooled connection failed (the server restarted, say); the pool replaces it. */
  readonly onConnectionError?: (error: Error) => void;
}): Promise<OpenDatabase> {
  if (options.databaseUrl !== null) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // Without a listener such an error would end the process.
    pool.on("error", (error) => {
      options.onConnectionError?.(error);
    });
    const db = new Kysely<DaemonTables>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: "postgres", close: () => db.destroy() };
  }
  const dir = join(options.dataDir, "pglite");
  await mkdir(dir, { recursive: true });
  const pglite = await PGlite.create(dir);
  const db = new Kysely<DaemonTables>({ dialect: new PGliteDialect(pglite) });
  return { db, kind: "pglite", close: () => db.destroy() };
}
