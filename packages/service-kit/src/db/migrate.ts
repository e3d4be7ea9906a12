import { readdir } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { Migrator, type Migration, type MigrationProvider } from "kysely/migration";

/**
 * A folder of migration modules (each exporting `up` and optionally `down`), run under a
 * namespace so that independent parts of a service (the daemon's core, its extensions) keep
 * their own numbering: migration names are `<namespace>/<file name without extension>`.
 */
export interface MigrationFolder {
  readonly namespace: string;
  readonly folder: URL;
}

/**
 * Migrations a service lists in code, in order, under the names its database already records
 * (the backend's `0001_initial`…): no namespace is added, so the rows of a database migrated
 * by an earlier release match.
 */
export interface MigrationList {
  readonly migrations: Readonly<Record<string, Migration>>;
}

export type MigrationSource = MigrationFolder | MigrationList;

export class MigrationError extends Error {
  readonly code = "migration_failed";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "MigrationError";
  }
}

/** Source (`.ts`) and build (`.js`) layouts both work; declarations and tests are skipped. */
const MIGRATION_FILE = /^(?!.*\.(?:d|test)\.[cm]?[jt]s$).+\.(?:ts|js)$/;

class SourceMigrationProvider implements MigrationProvider {
  readonly #sources: readonly MigrationSource[];
  #loaded: Promise<Record<string, Migration>> | null = null;
  constructor(sources: readonly MigrationSource[]) {
    this.#sources = sources;
  }

  /** Loaded once: the up-to-date check and the migrator both ask. */
  getMigrations(): Promise<Record<string, Migration>> {
    this.#loaded ??= this.#load();
    return this.#loaded;
  }

  async #load(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const source of this.#sources) {
      if ("migrations" in source) {
        Object.assign(migrations, source.migrations);
        continue;
      }
      const { namespace, folder } = source;
      const dir = fileURLToPath(folder);
      const files = (await readdir(dir)).filter((f) => MIGRATION_FILE.test(f)).sort();
      for (const file of files) {
        const name = `${namespace}/${file.replace(/\.(ts|js)$/, "")}`;
        if (name in migrations) {
          throw new MigrationError(
            `two migration files are both named ${name} (.ts and .js side by side?)`,
          );
        }
        const module = (await import(pathToFileURL(join(dir, file)).href)) as Partial<Migration>;
        if (typeof module.up !== "function") {
          throw new MigrationError(`migration ${name} does not export an up(db) function`);
        }
        migrations[name] = module as Migration;
      }
    }
    return migrations;
  }
}

/**
 * Brings the schema up to date; returns the names of the migrations that ran now. Runs in one
 * transaction per migration under Kysely's migration lock (tables `kysely_migration` and
 * `kysely_migration_lock`), so two processes starting on one server database do not race.
 * Namespaced folders may gain migrations independently, so there an older name appearing
 * later is allowed; a list alone must only grow at its end.
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  sources: readonly MigrationSource[],
): Promise<readonly string[]> {
  const provider = new SourceMigrationProvider(sources);
  const allowUnorderedMigrations = sources.some((source) => "folder" in source);
  const names = Object.keys(await provider.getMigrations()).sort();
  if (await recordedExactly(db, names, allowUnorderedMigrations)) return [];
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    throw new MigrationError(
      `Database migration ${failed ?? "(unknown)"} failed: ${
        error instanceof Error ? error.message : JSON.stringify(error)
      }. The database was left at the last migration that succeeded.`,
      { cause: error },
    );
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/**
 * Whether the database records exactly these migrations (in this order, unless unordered ones
 * are allowed), as at every start after the first: then there is nothing to run, and one read
 * of Kysely's table replaces the migrator's checks, which introspect the whole catalog twice
 * (about 15 s of WebAssembly over the test suite's embedded databases). Anything else (no table
 * yet, a migration to run, a name the code does not know) is left to the migrator, which runs
 * or refuses it as before.
 */
async function recordedExactly<DB>(
  db: Kysely<DB>,
  names: readonly string[],
  unordered: boolean,
): Promise<boolean> {
  let recorded: string[];
  try {
    const { rows } = await sql<{ name: string }>`
      SELECT name FROM kysely_migration ORDER BY timestamp, name`.execute(db);
    recorded = rows.map((row) => row.name);
  } catch {
    return false;
  }
  if (unordered) recorded.sort();
  return recorded.length === names.length && recorded.every((name, i) => name === names[i]);
}
