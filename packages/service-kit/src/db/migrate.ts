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
 *
 * Pending migrations run source by source, in the order the service lists its sources, and by
 * name within one: a source listed first (the turn engine's tables) is there before a later
 * source's migration that moves rows into it, whatever their names sort as.
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  sources: readonly MigrationSource[],
): Promise<readonly string[]> {
  const provider = new SourceMigrationProvider(sources);
  const allowUnorderedMigrations = sources.some((source) => "folder" in source);
  const all = await provider.getMigrations();
  const names = Object.keys(all).sort();
  const recorded = await recordedNames(db);
  if (recorded !== null && sameNames(recorded, names, allowUnorderedMigrations)) return [];
  const sourceOf = (name: string): number =>
    sources.findIndex((source) =>
      "folder" in source ? name.startsWith(`${source.namespace}/`) : name in source.migrations,
    );
  const done = new Set(recorded ?? []);
  const pending = names.filter((name) => !done.has(name));
  // One run when name order is already source order (every start but a release's first).
  const phases = inSourceOrder(pending, sourceOf)
    ? [sources.length - 1]
    : [...new Set(pending.map(sourceOf))].sort((a, b) => a - b);
  const ran: string[] = [];
  for (const upTo of phases) {
    const allowed = (name: string) => done.has(name) || sourceOf(name) <= upTo;
    const phase: MigrationProvider = {
      getMigrations: () =>
        Promise.resolve(Object.fromEntries(Object.entries(all).filter(([name]) => allowed(name)))),
    };
    const migrator = new Migrator({ db, provider: phase, allowUnorderedMigrations });
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
    for (const result of results ?? []) {
      if (result.status !== "Success") continue;
      ran.push(result.migrationName);
      done.add(result.migrationName);
    }
  }
  return ran;
}

/** Whether running `pending` by name runs every source's migrations after those listed before it. */
function inSourceOrder(pending: readonly string[], sourceOf: (name: string) => number): boolean {
  return pending.every((name, i) => i === 0 || sourceOf(pending[i - 1] ?? name) <= sourceOf(name));
}

/**
 * The migrations the database records, or null before its first (no table yet). When they are
 * exactly the code's, as at every start after the first, there is nothing to run: one read of
 * Kysely's table replaces the migrator's checks, which introspect the whole catalog twice
 * (about 15 s of WebAssembly over the test suite's embedded databases). Anything else (a
 * migration to run, a name the code does not know) is left to the migrator, which runs or
 * refuses it as before.
 */
async function recordedNames<DB>(db: Kysely<DB>): Promise<string[] | null> {
  try {
    const { rows } = await sql<{ name: string }>`
      SELECT name FROM kysely_migration ORDER BY timestamp, name`.execute(db);
    return rows.map((row) => row.name);
  } catch {
    return null;
  }
}

function sameNames(recorded: readonly string[], names: readonly string[], unordered: boolean) {
  const inOrder = unordered ? [...recorded].sort() : recorded;
  return inOrder.length === names.length && inOrder.every((name, i) => name === names[i]);
}
