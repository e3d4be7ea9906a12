import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { copyCluster, seedPgliteDataDir } from "@talkide/service-kit/testing";
import { openDatabase } from "../db/connect.ts";
import { migrateToLatest } from "../db/migrate.ts";

const DB_DIR = fileURLToPath(new URL("../db/", import.meta.url));

/**
 * Gives a data directory an embedded database at the latest migration, copied from one made
 * once per run and schema: running the migrations on a new cluster costs seconds of CPU per
 * service a test starts. The service finds nothing to migrate, as on any later start. A data
 * directory that already has a database keeps it.
 */
export async function seedMigratedCluster(dataDir: string): Promise<void> {
  const target = join(dataDir, "pglite");
  if (await exists(target)) return;
  copyCluster(await migratedTemplate(), target);
}

let template: Promise<string> | null = null;
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    // Keyed by the migrations' sources and the PGlite build: a new migration makes a new one.
    const dir = join(tmpdir(), `talkide-be-migrated-${await schemaKey()}`);
    if (await exists(join(dir, "PG_VERSION"))) return dir;
    const staging = `${dir}.${process.pid}.${randomBytes(4).toString("hex")}`;
    await seedPgliteDataDir(staging);
    const database = await openDatabase({ databaseUrl: null, dataDir: staging });
    try {
      await migrateToLatest(database.db);
    } finally {
      await database.close();
    }
    // Written aside and renamed into place, so a parallel worker never copies half of it.
    await rename(join(staging, "pglite"), dir).catch(() => undefined);
    await rm(staging, { recursive: true, force: true });
    return dir;
  })();
  return template;
}

async function schemaKey(): Promise<string> {
  const hash = createHash("sha256").update(import.meta.resolve("@electric-sql/pglite"));
  const files = [
    "migrate.ts",
    ...(await readdir(join(DB_DIR, "migrations"))).sort().map((name) => `migrations/${name}`),
  ];
  for (const file of files) hash.update(file).update(await readFile(join(DB_DIR, file)));
  return hash.digest("hex").slice(0, 16);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
