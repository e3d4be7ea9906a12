import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { GATEWAY_MIGRATIONS } from "@talkide/gateway";
import { migrateToLatest, openDatabase } from "@talkide/service-kit";
import { ENGINE_MIGRATIONS } from "@talkide/turn-engine";
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { CORE_MIGRATIONS } from "../db/core-migrations.ts";
import {
  makeTempDir,
  removeDir,
  seedPgliteDataDir,
  startTestDaemon,
  type TestDaemon,
} from "./harness.ts";

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

/**
 * A daemon of this release started on the database an earlier release left: the schema before
 * `first` (`migrateDaemonBefore`, which names the migrations that ran), and the rows `write`
 * puts in it, its agents' workspace at `workspace` (the folder a release's recording run had is
 * gone). PGlite in a data directory of its own unless `databaseUrl` names a server's database.
 * The caller stops the daemon and removes `dir`.
 */
export async function startOnEarlierSchema(options: {
  readonly first: string;
  readonly databaseUrl?: string | null;
  readonly write: (
    db: Kysely<unknown>,
    earlier: { readonly workspace: string; readonly ran: readonly string[] },
  ) => Promise<void>;
  readonly logger?: Parameters<typeof startTestDaemon>[0]["logger"];
}): Promise<{ readonly td: TestDaemon; readonly dir: string }> {
  const databaseUrl = options.databaseUrl ?? null;
  const dir = await makeTempDir();
  try {
    const dataDir = join(dir, "data");
    const workspace = join(dir, "ws");
    await mkdir(workspace, { recursive: true });
    if (databaseUrl === null) await seedPgliteDataDir(dataDir);
    const old = await openDatabase<unknown>({ databaseUrl, dataDir });
    try {
      const ran = await migrateDaemonBefore(old.db, options.first);
      await options.write(old.db, { workspace, ran });
    } finally {
      await old.close();
    }
    const td = await startTestDaemon({
      dataDir,
      config: { databaseUrl },
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    return { td, dir };
  } catch (error) {
    await removeDir(dir);
    throw error;
  }
}
