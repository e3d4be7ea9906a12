import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useMigratedEmbeddedDatabase } from "../test-support/embedded-database.ts";
import { createProject } from "./projects.ts";
import { insertQueuedTurn, loadTurnEvents, queuedEvent } from "./turns.ts";
import { createUser } from "./users.ts";

const embedded = useMigratedEmbeddedDatabase("talkide-turns-");

describe("insertQueuedTurn", () => {
  // The first event is written by SQL (with the turn, in one statement) and built in memory
  // for a turn that starts where it was queued: a stream must get the same event either way.
  it("stores the turn's first event exactly as queuedEvent builds it", async () => {
    const { db } = embedded.database;
    const { user } = await createUser(db, { email: "anna@example.com", displayName: "Anna" });
    const project = await createProject(db, {
      userId: user.id,
      workspacesDir: join(embedded.dir, "workspaces"),
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
