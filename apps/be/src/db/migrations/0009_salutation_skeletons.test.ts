import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderContext } from "../../context/prepare.ts";
import { listMembers, normalizeSalutationKey, updateMember } from "../../domain/members.ts";
import { requireMembership } from "../../domain/membership.ts";
import { createSeat } from "../../domain/seats.ts";
import { projectView } from "../../domain/projects.ts";
import { openDatabase, type Database } from "../connect.ts";
import { migrateToLatest } from "../migrate.ts";
import { seedPgliteDataDir } from "@talkide/service-kit/testing";
import { migrateBefore } from "../../test-support/earlier-schema.ts";

// A database written by the release before issue 29 (migrations up to 0007): text stored as submitted, and two
// members whose salutations look alike. It must open, and show one truth.

describe("migration 0009: normalized text and a unique look per project", () => {
  let dir: string;
  let database: Database;
  const ids = { anna: "", cyril: "", ada: "", annaUser: "", bobUser: "" };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "talkide-0009-"));
    await seedPgliteDataDir(dir);
    database = await openDatabase({ databaseUrl: null, dataDir: dir });
    const db = database.db;
    await migrateBefore(db, "0008");

    // Users as that release wrote them (today's createUser writes columns it did not have).
    const user = async (email: string) =>
      (
        await sql<{ id: string }>`INSERT INTO users (email, email_key, display_name)
          VALUES (${email}, ${email}, ${email}) RETURNING id`.execute(db)
      ).rows[0]?.id ?? "";
    ids.annaUser = await user("anna@example.com");
    ids.bobUser = await user("bob@example.com");
    const cyrilUser = await user("cyril@example.com");
    const adaUser = await user("ada@example.com");
    await user("eve@example.com");

    await db
      .insertInto("projects")
      .values({
        id: 1,
        name: "\u00a0Peka\u0301rna u Jelena\u2028",
        url: " https://pekarna.example/\u0085",
        description: "E-shop pro\n\n malou  peka\u0301rnu ",
        backend_language: "Kotlin\u3000",
        workspace_dir: join(dir, "project-1"),
      })
      .execute();
    // As the old release stored them: as submitted, the key normalized. Roster order is
    // created_at, set here instead of clock_timestamp() in three inserts a millisecond apart:
    // one CI run listed the later two in the wrong order (the cause was not found).
    let joined = 0;
    const member = async (userId: string, salutation: string, briefing: string | null) =>
      (
        await db
          .insertInto("members")
          .values({
            project_id: 1,
            user_id: userId,
            role: userId === ids.annaUser ? "owner" : "member",
            salutation,
            salutation_key: normalizeSalutationKey(salutation),
            team_briefing: briefing,
            created_at: `2026-11-0${String((joined += 1))}T10:00:00Z`,
          })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    ids.anna = await member(ids.annaUser, "Anna\u2028", "Preferuji Pinia.  \r\n\r\n");
    ids.cyril = await member(cyrilUser, "\u0410nna", "Cyrillic А."); // looks like Anna
    ids.ada = await member(adaUser, " A\u0301da", "\u2028Backend.\t");

    expect(await migrateToLatest(db)).toContain("0009_salutation_skeletons");
  });

  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("rewrites every old value to what CLAUDE.md showed", async () => {
    const db = database.db;
    const membership = await requireMembership(db, 1, ids.annaUser);
    expect(projectView(membership.project)).toMatchObject({
      name: "Pekárna u Jelena",
      url: "https://pekarna.example/",
      description: "E-shop pro malou pekárnu",
      backendLanguage: "Kotlin",
    });
    const members = await listMembers(db, membership);
    expect(members.map((m) => [m.salutation, m.teamBriefing])).toEqual([
      ["Anna", "Preferuji Pinia."],
      ["\u0410nna", "Cyrillic А."],
      ["Áda", "Backend."],
    ]);
    const { files } = await renderContext(db, {
      projectId: 1,
      activeMemberId: ids.anna,
      layout: "single",
    });
    const claudeMd = files.find((f) => f.path === "CLAUDE.md")?.content ?? "";
    expect(claudeMd).toContain("- **Název**: Pekárna u Jelena\n");
    for (const m of members) expect(claudeMd).toContain(`## Oslovuj jako "${m.salutation}"\n`);
    expect(claudeMd).toContain("> Preferuji Pinia.\n");
  });

  it("keeps both look-alike members; the earlier one holds the look", async () => {
    const rows = await database.db
      .selectFrom("members")
      .select(["id", "salutation_skeleton"])
      .orderBy("created_at")
      .execute();
    expect(rows).toEqual([
      { id: ids.anna, salutation_skeleton: "Anna" },
      { id: ids.cyril, salutation_skeleton: null },
      { id: ids.ada, salutation_skeleton: "A\u0301da" },
    ]);
  });

  it("lets the later look-alike edit their briefing, not keep a look-alike name", async () => {
    const db = database.db;
    const owner = await requireMembership(db, 1, ids.annaUser);
    // The console sends the salutation with every briefing: re-sending it is no change.
    const briefing = await updateMember(db, owner, ids.cyril, {
      salutation: "\u0410nna",
      teamBriefing: "Frontend.",
    });
    expect(briefing).toMatchObject({ salutation: "\u0410nna", teamBriefing: "Frontend." });
    for (const salutation of ["An\u200bna", "A\u0301da"]) {
      await expect(updateMember(db, owner, ids.cyril, { salutation })).rejects.toMatchObject({
        code: "salutation_taken",
        httpStatus: 409,
      });
    }
    await expect(createSeat(db, owner, { salutation: "Ann\u0430" })).rejects.toMatchObject({
      code: "salutation_taken",
      httpStatus: 409,
    });

    const renamed = await updateMember(db, owner, ids.cyril, { salutation: "Cyril" });
    expect(renamed.salutation).toBe("Cyril");
    const row = await db
      .selectFrom("members")
      .select("salutation_skeleton")
      .where("id", "=", ids.cyril)
      .executeTakeFirstOrThrow();
    expect(row.salutation_skeleton).toBe("Cyril");
  });
});
