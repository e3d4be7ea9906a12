import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, sql } from "kysely";
import type { Migration } from "kysely/migration";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, removeDir, seededPgliteCluster } from "../test-support/index.ts";
import { migrateToLatest } from "./migrate.ts";

const databases: Kysely<unknown>[] = [];
const pglites = new WeakMap<Kysely<unknown>, PGlite>();
const dirs: string[] = [];
/** An empty database of its own: a copy of the empty cluster (no initdb per test). */
async function freshDatabase(): Promise<Kysely<unknown>> {
  const dir = await makeTempDir("talkide-migrate-");
  dirs.push(dir);
  const pglite = new PGlite(await seededPgliteCluster(dir));
  const db = new Kysely<unknown>({ dialect: new PGliteDialect({ pglite }) });
  databases.push(db);
  pglites.set(db, pglite);
  return db;
}
afterEach(async () => {
  for (const db of databases.splice(0)) await db.destroy();
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

const createTable = (name: string): Migration => ({
  up: async (db) => {
    await db.schema.createTable(name).addColumn("id", "integer").execute();
  },
});

async function recorded(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((r) => r.name);
}

describe("migrateToLatest from a list", () => {
  it("records the names as listed, without a namespace, and runs each once", async () => {
    const db = await freshDatabase();
    const migrations = { "0001_first": createTable("a"), "0002_second": createTable("b") };
    expect(await migrateToLatest(db, [{ migrations }])).toEqual(["0001_first", "0002_second"]);
    expect(await migrateToLatest(db, [{ migrations }])).toEqual([]);
    expect(await recorded(db)).toEqual(["0001_first", "0002_second"]);
  });

  it("names the failed migration and leaves the database as it was", async () => {
    const db = await freshDatabase();
    const failing: Migration = {
      up: async (trx) => {
        await sql`select * from no_such_table`.execute(trx);
      },
    };
    const run = migrateToLatest(db, [
      { migrations: { "0001_ok": createTable("a"), "0002_bad": failing } },
    ]);
    await expect(run).rejects.toMatchObject({
      code: "migration_failed",
      message: expect.stringMatching(
        /^Database migration 0002_bad failed: .*no_such_table.*\. The database was left at the last migration that succeeded\.$/,
      ) as unknown,
    });
    // One run is one transaction on PostgreSQL: the migration before it is undone as well.
    expect(await recorded(db)).toEqual([]);
  });

  it("finds an up-to-date database with one read of its migration table", async () => {
    const db = await freshDatabase();
    const migrations = { "0001_first": createTable("a"), "0002_second": createTable("b") };
    await migrateToLatest(db, [{ migrations }]);
    // The same database through a Kysely that logs every statement it runs.
    const statements: string[] = [];
    const pglite = pglites.get(db);
    if (pglite === undefined) throw new Error("not a fresh database");
    const watched = new Kysely<unknown>({
      dialect: new PGliteDialect({ pglite }),
      log: (event) => {
        statements.push(event.query.sql.trim());
      },
    });
    expect(await migrateToLatest(watched, [{ migrations }])).toEqual([]);
    // Not the migrator's catalog introspection (pg_catalog, twice) and lock round trips.
    expect(statements).toEqual([expect.stringMatching(/^SELECT name FROM kysely_migration /)]);
  });

  it("still refuses a database that records a migration the code does not have", async () => {
    const db = await freshDatabase();
    const migrations = { "0001_first": createTable("a"), "0002_second": createTable("b") };
    await migrateToLatest(db, [{ migrations }]);
    const older = { "0001_first": createTable("a") };
    await expect(migrateToLatest(db, [{ migrations: older }])).rejects.toMatchObject({
      code: "migration_failed",
    });
  });

  it("refuses a list whose new entry sorts before one already run", async () => {
    const db = await freshDatabase();
    await migrateToLatest(db, [{ migrations: { "0002_b": createTable("b") } }]);
    const run = migrateToLatest(db, [
      { migrations: { "0001_a": createTable("a"), "0002_b": createTable("b") } },
    ]);
    await expect(run).rejects.toMatchObject({ code: "migration_failed" });
  });
});

describe("migrateToLatest from several sources", () => {
  /** A namespaced folder whose one migration creates table `t`. */
  async function folderCreatingT(): Promise<URL> {
    const dir = await makeTempDir("talkide-migrations-");
    dirs.push(dir);
    await writeFile(join(dir, "package.json"), '{"type":"module"}');
    await writeFile(
      join(dir, "0001-t.js"),
      "export async function up(db) { await db.schema.createTable('t').addColumn('id', 'integer').execute(); }",
    );
    return pathToFileURL(`${dir}/`);
  }
  const movesIntoT: Migration = {
    up: async (db) => {
      await sql`insert into t (id) select id from a`.execute(db);
    },
  };

  it("runs a source listed first before a later source's migration that needs it, whatever the names", async () => {
    const db = await freshDatabase();
    // Today's release: the list's first migration and another namespace's folder.
    await migrateToLatest(db, [{ migrations: { "0001_a": createTable("a") } }]);
    await sql`insert into a (id) values (7)`.execute(db);
    // The next release lists a folder first whose migration the list's new one moves rows into:
    // `0002_move` sorts before `engine/0001-t` by name, and still runs after it.
    const folder = await folderCreatingT();
    const ran = await migrateToLatest(db, [
      { namespace: "engine", folder },
      { migrations: { "0001_a": createTable("a"), "0002_move": movesIntoT } },
    ]);
    expect(ran).toEqual(["engine/0001-t", "0002_move"]);
    const { rows } = await sql<{ id: number }>`select id from t`.execute(db);
    expect(rows).toEqual([{ id: 7 }]);
  });

  it("builds a fresh database in the same order", async () => {
    const db = await freshDatabase();
    const folder = await folderCreatingT();
    const ran = await migrateToLatest(db, [
      { namespace: "engine", folder },
      { migrations: { "0001_a": createTable("a"), "0002_move": movesIntoT } },
    ]);
    expect(ran).toEqual(["engine/0001-t", "0001_a", "0002_move"]);
  });
});
