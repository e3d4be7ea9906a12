import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedPgliteDataDir } from "@talkide/service-kit/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../connect.ts";
import { migrateToLatest } from "../migrate.ts";
import { migrateBefore } from "../../test-support/earlier-schema.ts";

describe("migration 0015: one numbering of a project's events", () => {
  it("numbers the stored events in the order they were written, and every new one after them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "talkide-live-0013-"));
    await seedPgliteDataDir(dir);
    const old = await openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      await migrateBefore(old.db, "0015");
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
      await sql`INSERT INTO turns (id, project_id, number, member_id, prompt, status)
        VALUES ('00000000-0000-4000-8000-000000000003', 1, 1,
                '00000000-0000-4000-8000-000000000002', 'x', 'succeeded')`.execute(old.db);
      for (const [seq, type] of [
        [1, "turn.queued"],
        [2, "turn.succeeded"],
      ] as const) {
        await sql`INSERT INTO turn_events (turn_id, seq, type, data)
          VALUES ('00000000-0000-4000-8000-000000000003', ${seq}, ${type}, '{}')`.execute(old.db);
      }

      expect(await migrateToLatest(old.db)).toContain("0015_live_conversation");
      const numbered = await sql<{ seq: number; project_seq: string | number }>`
        SELECT seq, project_seq FROM turn_events ORDER BY seq`.execute(old.db);
      expect(numbered.rows.map((r) => Number(r.project_seq))).toEqual([1, 2]);
      // A new event of the project, of a turn or of its roster, takes the next number.
      await sql`INSERT INTO project_events (project_id, type, data)
        VALUES (1, 'member.changed', '{}')`.execute(old.db);
      await sql`INSERT INTO turn_events (turn_id, seq, type, data)
        VALUES ('00000000-0000-4000-8000-000000000003', 3, 'agent.text', '{}')`.execute(old.db);
      const roster = await sql<{ project_seq: string | number }>`
        SELECT project_seq FROM project_events`.execute(old.db);
      expect(Number(roster.rows[0]?.project_seq)).toBe(3);
      const latest = await sql<{ project_seq: string | number }>`
        SELECT project_seq FROM turn_events WHERE seq = 3`.execute(old.db);
      expect(Number(latest.rows[0]?.project_seq)).toBe(4);
      // A turn can end stopped.
      await sql`UPDATE turns SET status = 'stopped'`.execute(old.db);
    } finally {
      await old.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
