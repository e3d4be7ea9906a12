import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import pg from "pg";
import { openEmbeddedPostgres, openServerPool } from "@talkide/service-kit";
import type { QueueConnection } from "@talkide/work-queue";
import type { DatabaseSchema } from "./schema.ts";

export type DatabaseKind = "embedded" | "postgres";

export interface Database {
  readonly kind: DatabaseKind;
  readonly db: Kysely<DatabaseSchema>;
  /** How the turn queue (pg-boss) reaches the same database. */
  readonly queueConnection: QueueConnection;
  close(): Promise<void>;
}

export class DatabaseLockedError extends Error {
  readonly code = "database_in_use";
  constructor(dir: string, pid: number) {
    super(
      `The embedded database in ${dir} is in use by process ${pid}. It allows one process at a ` +
        "time: stop that process (the running service) first, or set DATABASE_URL to use a " +
        "PostgreSQL server, which has no such limit.",
    );
    this.name = "DatabaseLockedError";
  }
}

// Timestamps stay PostgreSQL text (see schema.ts); 1184 = timestamptz, 1114 = timestamp.
const TIMESTAMP_OIDS = [1184, 1114] as const;
const keepText = (value: string): string => value;

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * PGlite has no locking of its own: two processes on one data directory corrupt it. A pid
 * file taken with O_EXCL keeps a second process (a CLI run while the service is up) out;
 * a lock left by a process that no longer exists (a crash) is taken over.
 */
function takeEmbeddedLock(dir: string): () => void {
  const lockPath = join(dir, "talkide-be.lock");
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isProcessAlive(holder)) {
        throw new DatabaseLockedError(dir, holder);
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not take the lock file ${lockPath}; remove it if no service is running.`);
}

async function openEmbedded(dataDir: string): Promise<Database> {
  const dir = join(dataDir, "pglite");
  mkdirSync(dir, { recursive: true });
  const releaseLock = takeEmbeddedLock(dir);
  try {
    const pglite = await openEmbeddedPostgres(dir, {
      parsers: Object.fromEntries(TIMESTAMP_OIDS.map((oid) => [oid, keepText])),
    });
    await pglite.exec("SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, YMD';");
    const db = new Kysely<DatabaseSchema>({ dialect: new PGliteDialect({ pglite }) });
    return {
      kind: "embedded",
      db,
      queueConnection: { kind: "embedded", pglite },
      async close() {
        try {
          await db.destroy();
          if (!pglite.closed) await pglite.close();
        } finally {
          releaseLock();
        }
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

function timestampsAsText(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  for (const oid of TIMESTAMP_OIDS) types.setTypeParser(oid, keepText);
  return types;
}

function openServer(url: string, onConnectionError?: (error: Error) => void): Database {
  const pool = openServerPool(
    {
      connectionString: url,
      // Session settings that make timestamps come back as UTC ISO text (see schema.ts).
      options: "-c TimeZone=UTC -c DateStyle=ISO,YMD",
      types: timestampsAsText(),
    },
    onConnectionError,
  );
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: "postgres",
    db,
    queueConnection: { kind: "server", connectionString: url },
    async close() {
      await db.destroy();
    },
  };
}

/** The embedded database under `dataDir` unless a server URL is given. */
export async function openDatabase(options: {
  databaseUrl: string | null;
  dataDir: string;
  /** On a server: an idle pooled connection failed; the pool replaces it. */
  onConnectionError?: (error: Error) => void;
}): Promise<Database> {
  return options.databaseUrl === null
    ? openEmbedded(options.dataDir)
    : openServer(options.databaseUrl, options.onConnectionError);
}
