import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedPgliteDataDir } from "@talkide/service-kit/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { turnViewOf } from "../../domain/turns.ts";
import { openDatabase } from "../connect.ts";
import { migrateToLatest } from "../migrate.ts";
import { migrateBefore } from "../../test-support/earlier-schema.ts";

describe("migration 0011: a turn's tokens", () => {
  it("leaves every existing turn valid, its tokens and the session's reuse unknown", async () => {
    const dir = mkdtempSync(join(tmpdir(), "talkide-token-usage-0010-"));
    await seedPgliteDataDir(dir);
    const old = await openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      await migrateBefore(old.db, "0011");
      await sql`INSERT INTO users (id, email, email_key, display_name)
        VALUES ('00000000-0000-4000-8000-000000000001', 'a@example.org', 'a@example.org', 'A')`.execute(
        old.db,
      );
      await sql`INSERT INTO projects (id, name, workspace_dir) VALUES (1, 'P', '/ws')`.execute(
        old.db,
      );
      await sql`INSERT INTO members (id, project_id, user_id, role, salutation, salutation_key)
        VALUES ('00000000-0000-4000-8000-000000000002', 1,
                '00000000-0000-4000-8000-000000000001', 'owner', 'A', 'a')`.execute(old.db);
      await sql`INSERT INTO turns (project_id, number, member_id, prompt, status, result_text, cost_usd)
        VALUES (1, 1, '00000000-0000-4000-8000-000000000002', 'x', 'succeeded', 'Ahoj.', 0.01)`.execute(
        old.db,
      );

      expect(await migrateToLatest(old.db)).toContain("0011_turn_token_usage");
      const row = await old.db.selectFrom("turns").selectAll().executeTakeFirstOrThrow();
      expect(await turnViewOf(old.db, row)).toMatchObject({
        status: "succeeded",
        costUsd: 0.01,
        usage: null,
        sessionCacheReuse: null,
      });
    } finally {
      await old.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
