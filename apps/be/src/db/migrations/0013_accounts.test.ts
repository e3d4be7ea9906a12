import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedPgliteDataDir } from "@talkide/service-kit/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { findApiTokenUser } from "../../auth/api-tokens.ts";
import { hashToken } from "@talkide/service-kit";
import { requireMembership } from "../../domain/membership.ts";
import { openDatabase } from "../connect.ts";
import { migrateToLatest } from "../migrate.ts";
import { migrateBefore } from "../../test-support/earlier-schema.ts";

describe("migration 0013: accounts", () => {
  it("carries users, members and tokens over; old tokens expire 90 days after it ran", async () => {
    const dir = mkdtempSync(join(tmpdir(), "talkide-accounts-0012-"));
    await seedPgliteDataDir(dir);
    const old = await openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      await migrateBefore(old.db, "0013");
      const userId = "00000000-0000-4000-8000-000000000001";
      await sql`INSERT INTO users (id, email, email_key, display_name)
        VALUES (${userId}, 'a@example.org', 'a@example.org', 'A')`.execute(old.db);
      await sql`INSERT INTO projects (id, name, workspace_dir) VALUES (1, 'P', '/ws')`.execute(
        old.db,
      );
      await sql`INSERT INTO members (id, project_id, user_id, role, salutation, salutation_key, salutation_skeleton)
        VALUES ('00000000-0000-4000-8000-000000000002', 1, ${userId}, 'owner', 'A', 'a', 'A')`.execute(
        old.db,
      );
      await sql`INSERT INTO api_tokens (user_id, token_sha256)
        VALUES (${userId}, ${hashToken("tkbe_old")})`.execute(old.db);

      expect(await migrateToLatest(old.db)).toContain("0013_accounts");
      const found = await findApiTokenUser(old.db, "tkbe_old");
      expect(found?.userId).toBe(userId);
      const token = await old.db.selectFrom("api_tokens").selectAll().executeTakeFirstOrThrow();
      expect(token.name).toBe("API token");
      const days = (Date.parse(token.expires_at) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(89.9);
      expect(days).toBeLessThanOrEqual(90);
      const membership = await requireMembership(old.db, 1, userId);
      expect(membership.role).toBe("owner");
      // The roster's keys now hold among current members only: a removed member's salutation
      // is free again.
      await sql`UPDATE members SET removed_at = clock_timestamp()`.execute(old.db);
      await sql`INSERT INTO members (project_id, user_id, role, salutation, salutation_key, salutation_skeleton)
        VALUES (1, ${userId}, 'owner', 'A', 'a', 'A')`.execute(old.db);
    } finally {
      await old.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
