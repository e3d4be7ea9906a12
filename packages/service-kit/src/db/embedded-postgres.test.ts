import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, removeDir, seedPgliteDataDir } from "../test-support/index.ts";
import { EMBEDDED_SHARED_BUFFERS, openEmbeddedPostgres } from "./embedded-postgres.ts";

describe("openEmbeddedPostgres", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await removeDir(dir);
  });

  it("opens an embedded database with the services' buffer pool and PGlite's own settings", async () => {
    const dir = await makeTempDir("talkide-embedded-");
    dirs.push(dir);
    await seedPgliteDataDir(dir);
    const pglite = await openEmbeddedPostgres(`${dir}/pglite`);
    try {
      const show = async (name: string) =>
        (await pglite.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];
      expect(await show("shared_buffers")).toBe(EMBEDDED_SHARED_BUFFERS);
      // The rest of PGlite's start parameters still apply.
      expect(await show("search_path")).toBe("public");
      expect(await show("max_worker_processes")).toBe("0");
      await pglite.exec("CREATE TABLE t (v int); INSERT INTO t VALUES (1)");
      expect((await pglite.query<{ v: number }>("SELECT v FROM t")).rows).toEqual([{ v: 1 }]);
    } finally {
      await pglite.close();
    }
  });
});
