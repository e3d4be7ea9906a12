import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql, type Kysely } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./connect.ts";
import { migrateToLatest, MIGRATIONS_FOR_TESTS } from "./migrate.ts";
import type { DatabaseSchema } from "./schema.ts";
import { seedPgliteDataDir } from "@talkide/service-kit/testing";
import { migrateBefore } from "../test-support/earlier-schema.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Exactly how releases before the move to service-kit migrated: Kysely's own defaults, up to
 * 0016. (The migration tests 0009 and 0010 cover a database stopped at an older migration.)
 */
function migrateAsBefore(db: Kysely<DatabaseSchema>): Promise<void> {
  return migrateBefore(db, "0017");
}

async function recorded(
  db: Kysely<DatabaseSchema>,
): Promise<{ name: string; timestamp: string }[]> {
  const { rows } = await sql<{ name: string; timestamp: string }>`
    SELECT name, timestamp::text FROM kysely_migration ORDER BY name`.execute(db);
  return rows;
}

describe("a database written by an earlier release", () => {
  it("opens, finds nothing to do, and keeps its migration rows as they were", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-migrated-"));
    await seedPgliteDataDir(dataDir);
    dirs.push(dataDir);
    const old = await openDatabase({ databaseUrl: null, dataDir });
    await migrateAsBefore(old.db);
    const before = await recorded(old.db);
    await old.close();

    const reopened = await openDatabase({ databaseUrl: null, dataDir });
    try {
      // The turn engine's and the LLM gateway's tables are new since, and 0017 and 0018 move
      // the sessions and the runs to the engine's; nothing of the backend's earlier migrations
      // runs again.
      expect(await migrateToLatest(reopened.db)).toEqual([
        "engine/0001-sessions",
        "engine/0002-runs",
        "0017_engine_sessions",
        "0018_engine_runs",
        "gateway/0001-requests",
      ]);
      const names = new Set(before.map((row) => row.name));
      expect((await recorded(reopened.db)).filter((row) => names.has(row.name))).toEqual(before);
      expect(await migrateToLatest(reopened.db)).toEqual([]);
      expect(before.map((row) => row.name)).toEqual(
        Object.keys(MIGRATIONS_FOR_TESTS).filter((name) => name < "0017"),
      );
    } finally {
      await reopened.close();
    }
  });
});
