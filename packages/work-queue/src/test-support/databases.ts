import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import {
  createTestDatabase,
  postgresSuiteCanRun,
  startPostgresServer,
} from "@talkide/test-postgres";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import pg from "pg";
import type { QueueConnection } from "../work-queue.ts";

export type DatabaseKind = "embedded" | "server";

/** One app instance's view of the database: its Kysely and pg-boss's connection. */
export interface InstanceDatabase {
  readonly kysely: Kysely<never>;
  readonly connection: QueueConnection;
  close(): Promise<void>;
}

/** A database the tests' instances share: a PGlite directory, or a fresh database on a server. */
export interface SharedDatabase {
  readonly kind: DatabaseKind;
  /** The PGlite data directory, or the server database's URL. */
  readonly location: string;
  open(): Promise<InstanceDatabase>;
  drop(): Promise<void>;
}

export async function openInstanceDatabase(
  kind: DatabaseKind,
  location: string,
): Promise<InstanceDatabase> {
  if (kind === "embedded") {
    const pglite = await PGlite.create(location);
    const kysely = new Kysely<never>({ dialect: new PGliteDialect({ pglite }) });
    return {
      kysely,
      connection: { kind: "embedded", pglite },
      async close() {
        await kysely.destroy();
      },
    };
  }
  const kysely = new Kysely<never>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: location, max: 4 }) }),
  });
  return {
    kysely,
    connection: { kind: "server", connectionString: location },
    close: () => kysely.destroy(),
  };
}

let server: ReturnType<typeof startPostgresServer> | null = null;
let emptyTemplate: Promise<string> | null = null;

/**
 * A new, empty PGlite data directory: a copy of one made by PGlite's own initdb once per test
 * file. The initdb is most of a PGlite's start (seconds of CPU); the copy holds the same bytes
 * a fresh one would, so each test still begins on an empty database and installs pg-boss.
 */
async function emptyDataDir(): Promise<string> {
  emptyTemplate ??= (async () => {
    const template = mkdtempSync(join(tmpdir(), "talkide-work-queue-template-"));
    const pglite = await PGlite.create(template);
    await pglite.close();
    return template;
  })();
  const template = await emptyTemplate;
  const dir = mkdtempSync(join(tmpdir(), "talkide-work-queue-"));
  cpSync(template, dir, { recursive: true });
  return dir;
}

/** The server suites fail under CI=true when no server can be started (never a silent skip). */
export function serverSuiteCanRun(): boolean {
  return postgresSuiteCanRun("The PostgreSQL server suite of @talkide/work-queue");
}

export async function sharedDatabase(kind: DatabaseKind): Promise<SharedDatabase> {
  if (kind === "embedded") {
    // PGlite is one process's database: the "instances" of an embedded test share one PGlite,
    // which is closed (and may be reopened) as a whole.
    const dir = await emptyDataDir();
    let current: Promise<InstanceDatabase> | null = null;
    return {
      kind,
      location: dir,
      open: async () => {
        current ??= openInstanceDatabase(kind, dir);
        const database = await current;
        return {
          ...database,
          close: async () => {
            if (current === null) return;
            current = null;
            await database.close();
          },
        };
      },
      drop: async () => {
        const open = current;
        current = null;
        if (open !== null) await (await open).close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const adminUrl = process.env["TALKIDE_TEST_PG_URL"];
  let admin = adminUrl;
  if (admin === undefined || admin === "") {
    server ??= startPostgresServer();
    admin = (await server).url;
  }
  const db = await createTestDatabase(admin);
  return {
    kind,
    location: db.url,
    open: () => openInstanceDatabase(kind, db.url),
    drop: () => db.drop(),
  };
}

/** Stops the throwaway server the suites shared and removes the empty PGlite template, if made. */
export async function releaseSharedResources(): Promise<void> {
  const started = server;
  server = null;
  if (started !== null) await (await started).stop();
  const template = emptyTemplate;
  emptyTemplate = null;
  if (template !== null) rmSync(await template, { recursive: true, force: true });
}
