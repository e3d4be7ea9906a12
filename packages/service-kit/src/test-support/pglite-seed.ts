import { createHash, randomBytes } from "node:crypto";
import { cpSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { openDatabase } from "../db/database.ts";
import { migrateToLatest, type MigrationFolder } from "../db/migrate.ts";

/** The installed PGlite build (its resolved path names the version): part of every template's key. */
const PGLITE_BUILD = import.meta.resolve("@electric-sql/pglite");

/**
 * A database cluster made once per run and key and shared by the test workers: built in a
 * staging directory of this process's own and renamed into place, so no worker ever copies half
 * of one. `build` fills the staging directory and returns the cluster in it to keep.
 */
async function sharedCluster(
  name: string,
  key: string,
  build: (staging: string) => Promise<string>,
): Promise<string> {
  const dir = join(tmpdir(), `talkide-${name}-${key}`);
  if (await exists(join(dir, "PG_VERSION"))) return dir;
  const staging = `${dir}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await mkdir(staging, { recursive: true });
  const cluster = await build(staging);
  // Another worker may have renamed its own into place first: theirs is as good.
  await rename(cluster, dir).catch(() => undefined);
  await rm(staging, { recursive: true, force: true });
  return dir;
}

/**
 * An initialized, empty PGlite cluster to copy from. Creating a cluster (initdb inside
 * WebAssembly) takes seconds on this machine; copying one takes a fraction of that. Each
 * service still opens its own copy and runs its migrations on it.
 */
let template: Promise<string> | null = null;
function pgliteTemplate(): Promise<string> {
  const key = createHash("sha256").update(PGLITE_BUILD).digest("hex").slice(0, 16);
  template ??= sharedCluster("pglite-template", key, async (staging) => {
    const cluster = join(staging, "pglite");
    const db = await PGlite.create(cluster);
    await db.close();
    return cluster;
  });
  return template;
}

/**
 * Gives a service's data dir an empty embedded database cluster (`<dataDir>/pglite`, where
 * `openDatabase` looks), unless it has one.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const pgliteDir = join(dataDir, "pglite");
  if (!(await exists(pgliteDir))) copyCluster(await pgliteTemplate(), pgliteDir);
}

/**
 * A copy of the empty cluster in `<dir>/pglite`, for a test that opens PGlite itself: `new
 * PGlite()` without a directory runs initdb in WebAssembly (seconds of CPU) every time.
 * Returns the cluster's directory; removing `dir` removes it.
 */
export async function seededPgliteCluster(dir: string): Promise<string> {
  await seedPgliteDataDir(dir);
  return join(dir, "pglite");
}

/**
 * Copies a database cluster directory (about a thousand files, 39 MB). Synchronously on
 * purpose: `fs.cpSync` copies in native code, while `fs/promises`' `cp` walks the tree in
 * JavaScript with a thread-pool round trip per call; measured on a PGlite cluster, 60 ms and
 * 0.06 s of CPU against 0.4–1.5 s and about 1 s of CPU, paid by every service a test starts.
 */
export function copyCluster(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The kit's migration runner: it writes the bookkeeping tables every template holds. */
const MIGRATION_RUNNER = fileURLToPath(new URL("../db/migrate.ts", import.meta.url));

/**
 * A seeder for one service's data directories: each gets an embedded database already at the
 * latest migration, copied from a template made once per run and schema. Running a service's
 * migrations on a new cluster costs about a second of CPU (more in a process on V8's baseline
 * compiler), paid again by every service a test starts; the copy costs milliseconds, and the
 * service then finds nothing to migrate, as on any later start. A data directory that already
 * has a database keeps it.
 */
export function migratedPgliteSeeder(template: {
  /** Names the template's directory ("daemon", "hub"). */
  readonly name: string;
  /** Every file that decides the schema (the migrations, their runner): a change makes a new template. */
  readonly schemaFiles: () => Promise<readonly string[]>;
  /** Brings a data directory holding an empty cluster to the latest schema, then closes it. */
  readonly migrate: (dataDir: string) => Promise<void>;
}): (dataDir: string) => Promise<void> {
  let made: Promise<string> | null = null;
  const templateDir = (): Promise<string> => {
    made ??= (async () => {
      const key = createHash("sha256").update(PGLITE_BUILD);
      for (const file of [MIGRATION_RUNNER, ...(await template.schemaFiles())])
        key.update(file).update(await readFile(file));
      return sharedCluster(
        `${template.name}-migrated`,
        key.digest("hex").slice(0, 16),
        async (staging) => {
          await seedPgliteDataDir(staging);
          await template.migrate(staging);
          return join(staging, "pglite");
        },
      );
    })();
    return made;
  };
  return async (dataDir) => {
    const target = join(dataDir, "pglite");
    if (!(await exists(target))) copyCluster(await templateDir(), target);
  };
}

/**
 * migratedPgliteSeeder for a service whose schema is the kit's migration folders (the daemon's,
 * the hub's): the template runs exactly those folders, then `also` (what else the service would
 * install at its first start, such as its work queue's tables).
 */
export function migrationFoldersSeeder(
  name: string,
  migrations: readonly MigrationFolder[],
  also?: {
    /** The files (or builds) that decide what `prepare` installs: part of the template's key. */
    readonly files: readonly string[];
    readonly prepare: (pglite: PGlite) => Promise<void>;
  },
): (dataDir: string) => Promise<void> {
  return migratedPgliteSeeder({
    name,
    schemaFiles: async () => [
      ...(await filesIn(...migrations.map((migration) => migration.folder))),
      ...(also?.files ?? []),
    ],
    async migrate(dataDir) {
      const database = await openDatabase({ databaseUrl: null, dataDir });
      try {
        await migrateToLatest(database.db, migrations);
        if (also !== undefined && database.pglite !== null) await also.prepare(database.pglite);
      } finally {
        await database.close();
      }
    },
  });
}

/**
 * The files of the given folders and of the folders in them (a service's migrations and the
 * frozen copies they import), sorted, as absolute paths.
 */
export async function filesIn(...folders: readonly URL[]): Promise<string[]> {
  const lists = await Promise.all(
    folders.map(async (folder) => {
      const dir = fileURLToPath(folder);
      const entries = await readdir(dir, { recursive: true, withFileTypes: true });
      return entries
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name))
        .sort();
    }),
  );
  return lists.flat();
}
