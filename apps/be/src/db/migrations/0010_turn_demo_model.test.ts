import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../connect.ts";
import { migrateToLatest } from "../migrate.ts";
import { OLD_DEMO_MODEL_ANSWER } from "./0010_turn_demo_model.ts";
import { seedPgliteDataDir } from "@talkide/service-kit/testing";
import { migrateBefore } from "../../test-support/earlier-schema.ts";

describe("migration 0010: turns answered by the demo model", () => {
  it("marks the turns that carry the old demo answer, and no other", async () => {
    const dir = mkdtempSync(join(tmpdir(), "talkide-demo-model-0009-"));
    await seedPgliteDataDir(dir);
    const old = await openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      await migrateBefore(old.db, "0010");
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
      const answers = [
        OLD_DEMO_MODEL_ANSWER,
        "Ahoj, tady Mara.",
        `${OLD_DEMO_MODEL_ANSWER} `,
        null,
      ];
      for (const [index, answer] of answers.entries()) {
        await sql`INSERT INTO turns (project_id, number, member_id, prompt, status, result_text)
          VALUES (1, ${index + 1}, '00000000-0000-4000-8000-000000000002', 'x',
                  ${answer === null ? "failed" : "succeeded"}, ${answer})`.execute(old.db);
      }

      // The first of the backend's own that runs (the engine's folder runs before them).
      const ran = await migrateToLatest(old.db);
      expect(ran.find((name) => !name.includes("/"))).toBe("0010_turn_demo_model");
      const rows = await old.db
        .selectFrom("turns")
        .select(["number", "demo_model"])
        .orderBy("number")
        .execute();
      expect(rows.map((row) => [row.number, row.demo_model])).toEqual([
        [1, true],
        [2, false],
        [3, false],
        [4, false],
      ]);
    } finally {
      await old.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
