import { createHash, randomBytes } from "node:crypto";
import { cpSync } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
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
