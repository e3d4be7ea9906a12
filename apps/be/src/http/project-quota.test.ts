import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addMember,
  api,
  defaultProject,
  sendMessage,
  startHarness,
  terminalEvent,
  type Harness,
  type TestUser,
} from "../test-support/harness.ts";
import { projectSessions } from "../test-support/engine-sessions.ts";

// Issue 49, finding 3: one user took all 999 project ids in 22 s and nobody could create a
// project any more. Now each user owns at most TALKIDE_PROJECTS_PER_USER projects, and an
// owner deletes a project with everything of it, which frees its id.
interface Created {
  project: { id: number; workspaceDir: string };
}

let harness: Harness;
let mallory: TestUser;
let anna: TestUser;
let bob: TestUser;

beforeAll(async () => {
  harness = await startHarness({ env: { TALKIDE_PROJECTS_PER_USER: "2" } });
  mallory = await harness.createUser({ email: "mallory@example.com", displayName: "Mallory" });
  anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
  bob = await harness.createUser({ email: "bob@example.com", displayName: "Bob" });
});
afterAll(async () => {
  await harness.close();
});

async function create(user: TestUser): Promise<Created> {
  const response = await api<Created>(harness, user.token, "POST", "/v1/projects", defaultProject);
  expect(response.status).toBe(201);
  return response.body;
}

async function count(query: ReturnType<typeof sql<{ n: number }>>): Promise<number> {
  const { rows } = await query.execute(harness.service.database.db);
  return rows[0]?.n ?? -1;
}

describe("projects per user (issue 49, finding 3)", () => {
  it("refuses one project over the quota, says which limit and who sets it, creates nothing", async () => {
    await create(mallory);
    await create(mallory);
    const before = await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM projects`);
    const refused = await api(harness, mallory.token, "POST", "/v1/projects", defaultProject);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: "project_quota_reached",
      limit: "projects_per_user",
      max: 2,
      setBy: "operator",
    });
    expect(String(refused.body["detail"])).toContain("TALKIDE_PROJECTS_PER_USER");
    expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM projects`)).toBe(before);
    // Everyone else still creates projects.
    await create(anna);
  });

  it("counts projects owned: being a member of someone else's does not use the quota", async () => {
    const projects = await api<{ projects: Created["project"][] }>(
      harness,
      mallory.token,
      "GET",
      "/v1/projects",
    );
    const id = projects.body.projects[0]?.id ?? 0;
    const added = await addMember(harness, mallory.token, id, {
      email: "bob@example.com",
      salutation: "Bob",
    });
    expect(added.status).toBe(201);
    await create(bob);
    await create(bob);
  });
});

describe("an owner deletes a project", () => {
  it("removes its turns, sessions, members, queue jobs and workspace; the id is free again", async () => {
    const { project } = await create(anna);
    const turn = await sendMessage(harness, anna.token, project.id, "Ahoj");
    expect(terminalEvent(turn.events).event).toBe("turn.succeeded");
    writeFileSync(join(project.workspaceDir, "notes.txt"), "secret of the old project");
    const of = (table: string) =>
      count(
        sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE project_id = ${project.id}`,
      );
    expect(await of("turns")).toBe(1);
    const sessions = async () =>
      (await projectSessions(harness.service.database.db, project.id)).length;
    expect(await sessions()).toBe(1);

    const deleted = await api(harness, anna.token, "DELETE", `/v1/projects/${project.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    for (const table of ["turns", "members"]) expect(await of(table)).toBe(0);
    expect(await sessions()).toBe(0);
    expect(
      await count(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM turn_events
          WHERE turn_id NOT IN (SELECT id FROM turns)`,
      ),
    ).toBe(0);
    expect(
      await count(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job
          WHERE singleton_key = ${`project:${project.id}`}`,
      ),
    ).toBe(0);
    expect(existsSync(project.workspaceDir)).toBe(false);
    // Nothing of it is left beside the workspaces either.
    expect(
      readdirSync(join(harness.dataDir, "workspaces")).filter((n) => n.includes(".deleted")),
    ).toEqual([]);
    expect((await api(harness, anna.token, "GET", `/v1/projects/${project.id}`)).status).toBe(404);

    // The id is handed out again, with a fresh workspace.
    const again = await create(anna);
    expect(again.project.id).toBe(project.id);
    expect(existsSync(join(again.project.workspaceDir, "notes.txt"))).toBe(false);
  });

  it("frees a place in the owner's quota", async () => {
    const projects = await api<{ projects: Created["project"][] }>(
      harness,
      mallory.token,
      "GET",
      "/v1/projects",
    );
    const last = projects.body.projects.at(-1)?.id ?? 0;
    expect((await api(harness, mallory.token, "DELETE", `/v1/projects/${last}`)).status).toBe(204);
    await create(mallory);
  });

  it("is refused to a plain member (403) and to a non-member (404), changing nothing", async () => {
    const projects = await api<{ projects: Created["project"][] }>(
      harness,
      mallory.token,
      "GET",
      "/v1/projects",
    );
    const shared = projects.body.projects[0]?.id ?? 0;
    const byMember = await api(harness, bob.token, "DELETE", `/v1/projects/${shared}`);
    expect(byMember.status).toBe(403);
    expect(byMember.body["code"]).toBe("owner_required");
    const byStranger = await api(harness, anna.token, "DELETE", `/v1/projects/${shared}`);
    expect(byStranger.status).toBe(404);
    expect(byStranger.body["code"]).toBe("project_not_found");
    expect((await api(harness, mallory.token, "GET", `/v1/projects/${shared}`)).status).toBe(200);
  });

  it("is refused while a turn runs (409 project_busy), and goes through once it finished", async () => {
    const projects = await api<{ projects: Created["project"][] }>(
      harness,
      anna.token,
      "GET",
      "/v1/projects",
    );
    const id = projects.body.projects[0]?.id ?? 0;
    harness.claudeEnv["FAKE_CLAUDE_SCENARIO"] = "slow";
    harness.claudeEnv["FAKE_CLAUDE_DELAY_MS"] = "3000";
    try {
      const running = sendMessage(harness, anna.token, id, "Pomalu");
      // Wait until the turn runs.
      for (let i = 0; i < 100; i += 1) {
        const n = await count(
          sql<{ n: number }>`SELECT count(*)::int AS n FROM turns
            WHERE project_id = ${id} AND status = 'running'`,
        );
        if (n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const busy = await api(harness, anna.token, "DELETE", `/v1/projects/${id}`);
      expect(busy.status).toBe(409);
      expect(busy.body["code"]).toBe("project_busy");
      expect((await api(harness, anna.token, "GET", `/v1/projects/${id}`)).status).toBe(200);
      expect(terminalEvent((await running).events).event).toBe("turn.succeeded");
    } finally {
      delete harness.claudeEnv["FAKE_CLAUDE_SCENARIO"];
      delete harness.claudeEnv["FAKE_CLAUDE_DELAY_MS"];
    }
    expect((await api(harness, anna.token, "DELETE", `/v1/projects/${id}`)).status).toBe(204);
  });
});
