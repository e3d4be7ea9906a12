import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { GATEWAY_MIGRATIONS } from "@talkide/gateway";
import { migrateToLatest } from "@talkide/service-kit";
import { ENGINE_MIGRATIONS } from "@talkide/turn-engine";
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { CORE_MIGRATIONS } from "../db/core-migrations.ts";

/** The daemon's first migration that moves rows into the engine's tables. */
const FIRST_ON_ENGINE = "0009";

/**
 * The schema an earlier release left: the daemon's own migrations named before `first` (under
 * the names that release recorded, `daemon/…`) and the gateway's, so a migration test can write
 * that release's rows and then start this release on them. The engine's folder runs first when
 * one of them needs it (0009 on: the sessions moved there); a release before it had none.
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
  const withEngine = files.some((file) => file >= FIRST_ON_ENGINE);
  return migrateToLatest(db, [
    ...(withEngine ? [ENGINE_MIGRATIONS] : []),
    { migrations },
    GATEWAY_MIGRATIONS,
  ]);
}
