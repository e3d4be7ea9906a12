import { PGlite, type PGliteOptions } from "@electric-sql/pglite";

/**
 * PostgreSQL's buffer pool in an embedded (PGlite) database. The server's default, 128 MB,
 * lives in the WebAssembly instance's memory, which the instance touches as it starts.
 * Measured on a copied cluster, 32 MB takes a third fewer page faults per open (about 82,000
 * -> 55,000), about 0.2 s less CPU (an open 360 -> 170-210 ms) and about 115 MB less resident
 * memory. A service's embedded database is small, and a page outside the pool is one file read
 * away (PGlite's files go through the operating system's cache).
 */
export const EMBEDDED_SHARED_BUFFERS = "32MB";

/**
 * Opens (or creates) an embedded database in `dir` with the settings every service uses. The
 * start parameters are those settings, so a caller cannot pass its own.
 */
export function openEmbeddedPostgres(
  dir: string,
  options: Omit<PGliteOptions, "startParams"> = {},
): Promise<PGlite> {
  return PGlite.create(dir, {
    ...options,
    startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
  });
}
