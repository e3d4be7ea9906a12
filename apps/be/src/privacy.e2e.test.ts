import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "./domain/users.ts";
import {
  api,
  parseSse,
  sendMessage,
  startHarness,
  type ApiResponse,
  type Harness,
  type TestUser,
} from "./test-support/harness.ts";

/**
 * End-to-end privacy: users whose email, display name and phone are unique canary strings
 * use every feature; no canary may appear anywhere the model, the logs or other users can
 * see. Only the user's own profile (GET /v1/me) may show their own data.
 */
const tag = randomBytes(4).toString("hex");
const canaries = (who: string) => ({
  email: `canary.${who}.${tag}@example.org`,
  displayName: `Canaryname${who}${tag}`,
  phone: `+420 777 ${String(parseInt(tag.slice(0, 6), 16) % 1000).padStart(3, "0")} ${who === "anna" ? "111" : "222"}`,
});
const annaPii = canaries("anna");
const bobPii = canaries("bob");
const allCanaries = [annaPii, bobPii].flatMap((p) => [p.email, p.displayName, p.phone]);

function leaks(text: string): string[] {
  const lower = text.toLowerCase();
  return allCanaries.filter((canary) => lower.includes(canary.toLowerCase()));
}

function filesUnder(dir: string, skip: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (skip(path)) continue;
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, skip));
    else out.push(path);
  }
  return out;
}

describe("privacy, end to end", () => {
  let harness: Harness;
  let anna: TestUser;
  let bob: TestUser;
  const responses: Array<{ label: string; text: string }> = [];
  const record = () => join(harness.dataDir, "claude-record.jsonl");

  async function call(
    label: string,
    user: TestUser,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<ApiResponse> {
    const response = await api(harness, user.token, method, path, body);
    responses.push({ label, text: response.text });
    return response;
  }

  beforeAll(async () => {
    harness = await startHarness();
    harness.claudeEnv.FAKE_CLAUDE_RECORD = record();
    // The "agent" reads its whole workspace during the turn, as a real one may.
    harness.claudeEnv.FAKE_CLAUDE_RUN = "cat CLAUDE.md .talkide/*";
    anna = await harness.createUser(annaPii);
    bob = await harness.createUser(bobPii);
  });
  afterAll(async () => {
    await harness.close();
  });

  it("never lets a canary reach CLAUDE.md, project.yml, logs, spawns or other users' responses", async () => {
    const created = await call("create project", anna, "POST", "/v1/projects", {
      name: "Canary project",
      description: "Testing privacy",
      member: { salutation: "Anna", teamBriefing: "Piš testy." },
    });
    const projectId = (created.body.project as { id: number }).id;
    const base = `/v1/projects/${projectId}`;
    // Requests that carry a canary and fail must not echo it either.
    await call("invite, bad salutation", anna, "POST", `${base}/invites`, {
      email: bobPii.email,
      salutation: "# Bob",
    });
    await call("invite, bad e-mail", anna, "POST", `${base}/invites`, {
      email: `${bobPii.email}@`,
      salutation: "Nobody",
    });
    await call("add member directly", anna, "POST", `${base}/members`, {
      email: bobPii.email,
      salutation: "Bob",
    });
    // The e-mail an owner notes on an invite is shown back to the project's owners only,
    // while the seat is pending, and forgotten once it is taken.
    const seat = await api<{ link: { code: string } }>(
      harness,
      anna.token,
      "POST",
      `${base}/invites`,
      {
        email: bobPii.email,
        salutation: "Bob",
        teamBriefing: "Vue Router 4.",
      },
    );
    expect(leaks(seat.text)).toEqual([bobPii.email]);
    await call("bob takes the seat", bob, "POST", "/v1/invites/accept", {
      code: seat.body.link.code,
      join: "signed-in",
    });
    await call("bob takes the seat twice", bob, "POST", "/v1/invites/accept", {
      code: seat.body.link.code,
      join: "signed-in",
    });
    await call("pending invites", anna, "GET", `${base}/invites`);
    const contacts = await harness.service.database.db
      .selectFrom("seats")
      .select("contact")
      .execute();
    expect(contacts.map((row) => row.contact)).toEqual([null]);
    await call("bob edits himself", bob, "PATCH", `${base}/members/me`, {
      teamBriefing: "Vue Router 4!",
    });

    for (const [user, text] of [
      [anna, "Ahoj, navrhni doménový model."],
      [bob, "A co routing?"],
      [anna, "Díky."],
    ] as const) {
      const turn = await sendMessage(harness, user.token, projectId, text);
      responses.push({ label: `message ${text}`, text: turn.raw });
      expect(parseSse(turn.raw).at(-1)?.event).toBe("turn.succeeded");
    }

    for (const user of [anna, bob]) {
      await call("list projects", user, "GET", "/v1/projects");
      await call("get project", user, "GET", base);
      await call("members", user, "GET", `${base}/members`);
      await call("context", user, "GET", `${base}/context`);
      await call("CLAUDE.md", user, "GET", `${base}/context/CLAUDE.md`);
      await call("turns", user, "GET", `${base}/turns`);
    }

    // Only the caller's own profile shows their data: it must, or the canaries prove nothing.
    const annaMe = await api(harness, anna.token, "GET", "/v1/me");
    expect(leaks(annaMe.text)).toEqual([annaPii.email, annaPii.displayName, annaPii.phone]);
    const bobMe = await api(harness, bob.token, "GET", "/v1/me");
    expect(leaks(bobMe.text)).toEqual([bobPii.email, bobPii.displayName, bobPii.phone]);

    // A duplicate user error does not repeat the email.
    await expect(createUser(harness.service.database.db, annaPii)).rejects.toThrow(
      /already exists/,
    );
    await createUser(harness.service.database.db, annaPii).catch((error: unknown) => {
      expect(leaks(String(error))).toEqual([]);
    });

    for (const response of responses) {
      expect({ label: response.label, leaks: leaks(response.text) }).toEqual({
        label: response.label,
        leaks: [],
      });
    }

    // Every file the service wrote outside its database: workspaces (CLAUDE.md, the
    // active-writer file, project.yml), the plugin directory, Claude's state directory.
    const written = filesUnder(
      harness.dataDir,
      (path) => path.endsWith("pglite") || path === record(),
    );
    expect(written.map((f) => relative(harness.dataDir, f))).toEqual(
      expect.arrayContaining([
        `workspaces/project-${projectId}/CLAUDE.md`,
        `workspaces/project-${projectId}/.talkide/active-writer.md`,
        `workspaces/project-${projectId}/.talkide/project.yml`,
      ]),
    );
    for (const file of written) {
      expect({ file, leaks: leaks(readFileSync(file, "utf8")) }).toEqual({ file, leaks: [] });
    }

    // What each spawn got: argv, environment, working directory, stdin, and what the agent
    // read from its workspace.
    const spawns = await readFakeClaudeRecords(record());
    expect(spawns).toHaveLength(3);
    for (const spawn of spawns) {
      expect(leaks(JSON.stringify(spawn))).toEqual([]);
      expect(spawn.run?.stdout).toContain('## Oslovuj jako "Bob"');
    }

    expect(harness.logs.length).toBeGreaterThan(20);
    for (const line of harness.logs) {
      expect({ line, leaks: leaks(line) }).toEqual({ line, leaks: [] });
    }
  });
});
