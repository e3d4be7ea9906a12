import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import { afterAll, afterEach, expect, it } from "vitest";
import { openDatabase } from "../db/database.ts";
import { filesIn, migrationFoldersSeeder } from "./pglite-seed.ts";
import { makeTempDir, removeDir } from "./temp-dir.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

// The templates of these throwaway schemas are kept in the temporary directory like any other
// (for the next run to reuse), so they are removed here by their name.
const NAME = `seed-test-${String(process.pid)}`;
afterAll(async () => {
  for (const entry of await readdir(tmpdir()))
    if (entry.startsWith(`talkide-${NAME}-`)) await rm(join(tmpdir(), entry), { recursive: true });
});

async function tempDir(): Promise<string> {
  const dir = await makeTempDir();
  dirs.push(dir);
  return dir;
}

/** A migration folder of one file creating `table` (no imports: it runs from a temp dir). */
async function migrationFolder(table: string): Promise<URL> {
  const folder = join(await tempDir(), "migrations");
  await mkdir(folder);
  await writeFile(
    join(folder, "0001-first.js"),
    `export async function up(db) { await db.schema.createTable(${JSON.stringify(table)}).addColumn("id", "integer").execute(); }\n`,
  );
  return pathToFileURL(`${folder}/`);
}

async function tablesAndMigrations(dataDir: string): Promise<[string[], string[]]> {
  const database = await openDatabase<never>({ databaseUrl: null, dataDir });
  try {
    const tables = await sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_name NOT LIKE 'kysely%' ORDER BY 1`.execute(
      database.db,
    );
    const applied = await sql<{
      name: string;
    }>`SELECT name FROM kysely_migration ORDER BY 1`.execute(database.db);
    return [tables.rows.map((row) => row.name), applied.rows.map((row) => row.name)];
  } finally {
    await database.close();
  }
}

it("gives each data directory its own copy of a database already at the latest migration", async () => {
  const seed = migrationFoldersSeeder(NAME, [
    { namespace: "notes", folder: await migrationFolder("notes") },
  ]);
  const [first, second] = [await tempDir(), await tempDir()];
  await seed(first);
  await seed(second);
  expect(await tablesAndMigrations(first)).toEqual([["notes"], ["notes/0001-first"]]);

  // A copy, not a shared cluster: what one service writes, the other does not see.
  const database = await openDatabase<never>({ databaseUrl: null, dataDir: first });
  await sql`CREATE TABLE only_in_first (id integer)`.execute(database.db);
  await database.close();
  expect((await tablesAndMigrations(second))[0]).toEqual(["notes"]);

  // A data directory that has a database keeps it.
  await seed(first);
  expect((await tablesAndMigrations(first))[0]).toEqual(["notes", "only_in_first"]);
});

it("makes a new template when a migration changes", async () => {
  const seedNotes = migrationFoldersSeeder(NAME, [
    { namespace: "app", folder: await migrationFolder("notes") },
  ]);
  const seedTasks = migrationFoldersSeeder(NAME, [
    { namespace: "app", folder: await migrationFolder("tasks") },
  ]);
  const [notes, tasks] = [await tempDir(), await tempDir()];
  await seedNotes(notes);
  await seedTasks(tasks);
  expect((await tablesAndMigrations(notes))[0]).toEqual(["notes"]);
  expect((await tablesAndMigrations(tasks))[0]).toEqual(["tasks"]);
  expect(await readdir(join(tasks, "pglite"))).toContain("PG_VERSION");
});

it("counts the files of a migration folder's subfolders (frozen copies) among those that decide the schema", async () => {
  const dir = await tempDir();
  await mkdir(join(dir, "frozen"));
  await writeFile(join(dir, "0002_b.ts"), "");
  await writeFile(join(dir, "0001_a.ts"), "");
  await writeFile(join(dir, "frozen", "0001-rule.ts"), "");
  expect(await filesIn(pathToFileURL(`${dir}/`))).toEqual([
    join(dir, "0001_a.ts"),
    join(dir, "0002_b.ts"),
    join(dir, "frozen", "0001-rule.ts"),
  ]);
});
