import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Kysely } from "kysely";
import { openDatabase as openServiceKitDatabase } from "@talkide/service-kit";
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

/**
 * The embedded database under `dataDir` (locked to this process) unless a server URL is given,
 * opened by service-kit with timestamps as UTC ISO text (see schema.ts).
 */
export async function openDatabase(options: {
  databaseUrl: string | null;
  dataDir: string;
  /** On a server: an idle pooled connection failed; the pool replaces it. */
  onConnectionError?: (error: Error) => void;
}): Promise<Database> {
  const { databaseUrl } = options;
  let releaseLock = (): void => undefined;
  if (databaseUrl === null) {
    const dir = join(options.dataDir, "pglite");
    mkdirSync(dir, { recursive: true });
    releaseLock = takeEmbeddedLock(dir);
  }
  try {
    const opened = await openServiceKitDatabase<DatabaseSchema>({
      ...options,
      timestampsAsText: true,
    });
    let queueConnection: QueueConnection;
    if (databaseUrl !== null) queueConnection = { kind: "server", connectionString: databaseUrl };
    else if (opened.pglite !== null) queueConnection = { kind: "embedded", pglite: opened.pglite };
    else throw new Error("an embedded database opened without PGlite");
    return {
      kind: databaseUrl === null ? "embedded" : "postgres",
      db: opened.db,
      queueConnection,
      async close() {
        try {
          await opened.close();
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
