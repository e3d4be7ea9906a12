import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { lockDataDir } from "./data-dir.ts";
import { httpUrl } from "./http/http-url.ts";
import { createLogger } from "./logger.ts";
import { openServiceDatabase } from "./service-database.ts";
import { seedPgliteDataDir } from "./test-support/pglite-seed.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const owner = { service: "hub", dataDirVariable: "TALKIDE_HUB_DATA_DIR" };
const logger = createLogger("service-kit-test", "silent");

/** A data dir and a migration folder holding one migration file with the given body. */
async function setUp(migration: string): Promise<{ dataDir: string; folder: URL }> {
  const root = await mkdtemp(join(tmpdir(), "service-db-"));
  dirs.push(root);
  const migrations = join(root, "migrations");
  await mkdir(migrations);
  await writeFile(join(root, "package.json"), '{ "type": "module" }\n');
  await writeFile(join(migrations, "0001-first.js"), migration);
  return { dataDir: join(root, "data"), folder: pathToFileURL(`${migrations}/`) };
}

const CREATE_NOTES =
  "export async function up(db) { await db.schema.createTable('notes').addColumn('id', 'integer').execute(); }\n";

describe("openServiceDatabase", () => {
  // A data dir without a database: the first open creates its cluster, as on a first start.
  it("locks the data dir, migrates, and gives both back on close", async () => {
    const { dataDir, folder } = await setUp(CREATE_NOTES);
    const open = () =>
      openServiceDatabase<{ notes: { id: number } }>({
        owner,
        dataDir,
        databaseUrl: null,
        migrations: [{ namespace: "test", folder }],
        logger,
      });
    const first = await open();
    expect(first.kind).toBe("pglite");
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from notes`.execute(
      first.db,
    );
    expect(rows).toEqual([{ n: 0 }]);
    await expect(open()).rejects.toMatchObject({ code: "data_dir_in_use" });
    await first.close();
    const again = await open();
    await again.close();
  });

  it("a refused start (a migration that cannot run) leaves the data dir unlocked", async () => {
    const { dataDir, folder } = await setUp("export const notAMigration = 1;\n");
    // A copy of the empty cluster: the test above already makes one new (initdb in WebAssembly,
    // seconds of CPU), which this one does not need to repeat.
    await seedPgliteDataDir(dataDir);
    await expect(
      openServiceDatabase({
        owner,
        dataDir,
        databaseUrl: null,
        migrations: [{ namespace: "test", folder }],
        logger,
      }),
    ).rejects.toMatchObject({ code: "migration_failed" });
    const release = await lockDataDir(dataDir, owner);
    await release();
  });
});

describe("httpUrl", () => {
  it("puts an IPv6 literal in brackets and leaves names and IPv4 alone", () => {
    expect(httpUrl("127.0.0.1", 7420)).toBe("http://127.0.0.1:7420");
    expect(httpUrl("localhost", 80)).toBe("http://localhost:80");
    expect(httpUrl("::1", 7421)).toBe("http://[::1]:7421");
  });
});
