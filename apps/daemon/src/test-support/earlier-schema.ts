import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { GATEWAY_MIGRATIONS } from "@talkide/gateway";
import { migrateToLatest } from "@talkide/service-kit";
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { CORE_MIGRATIONS } from "../db/core-migrations.ts";

/**
 * The schema an earlier release left: the daemon's own migrations named before `first` (under
 * the names that release recorded, `daemon/…`) and the gateway's, without the engine's folder,
 * so a migration test can write that release's rows and then start this release on them.
 * Returns the names that ran.
 */
export async function migrateDaemonBefore<DB>(
  db: Kysely<DB>,
  first: string,
): Promise<readonly string[]> {
  const dir = fileURLToPath(CORE_MIGRATIONS.folder);
  const files = (await readdir(dir))
    .filter((file) => /^\d{4}-.*\.ts$/.test(file) && !file.endsWith(".test.ts") && file < first)
    .sort();
  const migrations: Record<string, Migration> = {};
  for (const file of files) {
    const module = (await import(pathToFileURL(join(dir, file)).href)) as Migration;
    migrations[`daemon/${file.replace(/\.ts$/, "")}`] = module;
  }
  return migrateToLatest(db, [{ migrations }, GATEWAY_MIGRATIONS]);
}
