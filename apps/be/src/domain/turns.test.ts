import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../db/connect.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { createProject } from "./projects.ts";
import { insertQueuedTurn, loadTurnEvents, queuedEvent } from "./turns.ts";
import { createUser } from "./users.ts";

let dir: string;
let database: Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "talkide-turns-"));
  database = await openDatabase({ databaseUrl: null, dataDir: dir });
  await migrateToLatest(database.db);
});

afterAll(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("insertQueuedTurn", () => {
  // The first event is written by SQL (with the turn, in one statement) and built in memory
  // for a turn that starts where it was queued: a stream must get the same event either way.
  it("stores the turn's first event exactly as queuedEvent builds it", async () => {
    const { db } = database;
    const { user } = await createUser(db, { email: "anna@example.com", displayName: "Anna" });
    const project = await createProject(db, {
      userId: user.id,
      workspacesDir: join(dir, "workspaces"),
      input: { name: "Shop", member: { salutation: "Anna" } },
    });
    const member = await db
      .selectFrom("members")
      .select("id")
      .where("project_id", "=", project.id)
      .executeTakeFirstOrThrow();
    for (const position of [0, 1, 7]) {
      const row = await insertQueuedTurn(db, {
        projectId: project.id,
        memberId: member.id,
        prompt: `message at ${String(position)}`,
        position,
      });
      expect(row.status).toBe("queued");
      expect(await loadTurnEvents(db, row.id)).toEqual([queuedEvent(row, position)]);
    }
  });
});
