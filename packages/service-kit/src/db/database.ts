import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import pg from "pg";
import { openEmbeddedPostgres } from "./embedded-postgres.ts";
import { openServerPool } from "./server-pool.ts";

export type DatabaseKind = "pglite" | "postgres";

export interface OpenDatabase<Tables> {
  readonly db: Kysely<Tables>;
  readonly kind: DatabaseKind;
  /** The embedded database itself (the daemon's work queue shares it); null on a server. */
  readonly pglite: PGlite | null;
  close(): Promise<void>;
}

// 1184 = timestamptz, 1114 = timestamp: read as the text PostgreSQL sends.
const TIMESTAMP_OIDS = [1184, 1114] as const;
const keepText = (value: string): string => value;

/**
 * Opens a service's database: a PostgreSQL server when `databaseUrl` is given, otherwise
 * the embedded PGlite database under `<dataDir>/pglite` (one process at a time; the data
 * directory's lock file guards that).
 */
export async function openDatabase<Tables>(options: {
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  /** An idle pooled connection failed (the server restarted, say); the pool replaces it. */
  readonly onConnectionError?: (error: Error) => void;
  /**
   * Timestamps come back as PostgreSQL's ISO text in UTC (`2026-11-29 06:00:00.123+00`) rather
   * than as `Date`s, on either kind of database: the backend's rows keep them as text.
   */
  readonly timestampsAsText?: boolean;
}): Promise<OpenDatabase<Tables>> {
  const asText = options.timestampsAsText === true;
  if (options.databaseUrl !== null) {
    const types = new pg.TypeOverrides();
    if (asText) for (const oid of TIMESTAMP_OIDS) types.setTypeParser(oid, keepText);
    const pool = openServerPool(
      {
        connectionString: options.databaseUrl,
        ...(asText ? { options: "-c TimeZone=UTC -c DateStyle=ISO,YMD", types } : {}),
      },
      options.onConnectionError,
    );
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: "postgres", pglite: null, close: () => db.destroy() };
  }
  const dir = join(options.dataDir, "pglite");
  await mkdir(dir, { recursive: true });
  const pglite = await openEmbeddedPostgres(
    dir,
    asText ? { parsers: Object.fromEntries(TIMESTAMP_OIDS.map((oid) => [oid, keepText])) } : {},
  );
  if (asText) await pglite.exec("SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, YMD';");
  // Kysely's own dialect: one statement or transaction at a time through its connection lock,
  // and each runs under PGlite's own exclusive lock, so the work queue's statements on the same
  // PGlite never land inside a transaction, and close() waits for a running one to end
  // (pglite-dialect.test.ts proves all three).
  const db = new Kysely<Tables>({ dialect: new PGliteDialect({ pglite }) });
  return { db, kind: "pglite", pglite, close: () => db.destroy() };
}
