import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { seedPgliteDataDir } from "../test-support/pglite-seed.ts";
import { openDatabase } from "./database.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function embeddedNow(timestampsAsText: boolean): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), "talkide-kit-db-"));
  dirs.push(dataDir);
  await seedPgliteDataDir(dataDir);
  const opened = await openDatabase<never>({ databaseUrl: null, dataDir, timestampsAsText });
  try {
    const { rows } = await sql<Record<string, unknown>>`
      select timestamptz '2026-11-29 07:00:00.5+01' as tz, timestamp '2026-11-29 06:00:00' as plain
    `.execute(opened.db);
    return rows[0] ?? {};
  } finally {
    await opened.close();
  }
}

describe("openDatabase (embedded)", () => {
  it("gives timestamps as UTC ISO text when asked, as Dates otherwise", async () => {
    expect(await embeddedNow(true)).toEqual({
      tz: "2026-11-29 06:00:00.5+00",
      plain: "2026-11-29 06:00:00",
    });
    const dates = await embeddedNow(false);
    expect(dates["tz"]).toBeInstanceOf(Date);
    expect((dates["tz"] as Date).toISOString()).toBe("2026-11-29T06:00:00.500Z");
  });
});
