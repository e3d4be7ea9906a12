import { createHash, randomBytes } from "node:crypto";
import { cp, mkdir, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";

/**
 * An initialized, empty PGlite cluster to copy from. Creating a cluster (initdb inside
 * WebAssembly) takes seconds on this machine; copying one takes a fraction of that. Each
 * service still opens its own copy and runs its migrations on it. Shared by test workers:
 * written to a unique directory and renamed into place, so nobody sees half of one.
 */
let template: Promise<string> | null = null;
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    // Keyed by the installed PGlite build (its resolved path names the version).
    const build = createHash("sha256")
      .update(import.meta.resolve("@electric-sql/pglite"))
      .digest("hex")
      .slice(0, 16);
    const dir = join(tmpdir(), `talkide-pglite-template-${build}`);
    if (await exists(join(dir, "PG_VERSION"))) return dir;
    const staging = `${dir}.${process.pid}.${randomBytes(4).toString("hex")}`;
    await mkdir(staging, { recursive: true });
    const db = await PGlite.create(staging);
    await db.close();
    await rename(staging, dir).catch(async () => rm(staging, { recursive: true, force: true }));
    return dir;
  })();
  return template;
}

/**
 * Gives a service's data dir an empty embedded database cluster (`<dataDir>/pglite`, where
 * `openDatabase` looks), unless it has one.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const pgliteDir = join(dataDir, "pglite");
  if (!(await exists(pgliteDir))) await cp(await pgliteTemplate(), pgliteDir, { recursive: true });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
