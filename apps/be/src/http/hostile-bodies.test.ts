import { fc } from "@fast-check/vitest";
import { CANARY, hostileBodies, sendHostile } from "@talkide/strict-json/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, defaultProject, startHarness, type Harness } from "../test-support/harness.ts";
import { allSessions } from "../test-support/engine-sessions.ts";

/**
 * Every write route of the API, over real HTTP, against bodies no client should send: each
 * is refused with a 4xx and a stable code, the database is unchanged, and no log line holds
 * any of the body's text.
 */
describe("hostile request bodies on every write route", () => {
  let harness: Harness;
  let token: string;
  let projectId: number;

  beforeAll(async () => {
    harness = await startHarness();
    const anna = await harness.createUser({ email: "anna@example.com", displayName: "Anna" });
    await harness.createUser({ email: "bob@example.com", displayName: "Bob" });
    token = anna.token;
    const created = await api<{ project: { id: number } }>(
      harness,
      token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    projectId = created.body.project.id;
  });

  afterAll(async () => {
    await harness.close();
  });

  /** Everything the API can write, as one comparable value. */
  async function snapshot(): Promise<unknown> {
    const { rows } = await sql<{ state: unknown }>`SELECT json_build_object(
        'users', (SELECT json_agg(u ORDER BY u.id) FROM users u),
        'projects', (SELECT json_agg(p ORDER BY p.id) FROM projects p),
        'members', (SELECT json_agg(m ORDER BY m.id) FROM members m),
        'turns', (SELECT count(*) FROM turns),
        'events', (SELECT count(*) FROM turn_events)
      ) AS state`.execute(harness.service.database.db);
    return {
      ...(rows[0]?.state as object),
      sessions: (await allSessions(harness.service.database.db)).length,
    };
  }

  const routes = (): Array<{
    method: string;
    path: string;
    valid: Parameters<typeof hostileBodies>[0];
  }> => [
    { method: "POST", path: "/v1/projects", valid: defaultProject },
    {
      method: "POST",
      path: `/v1/projects/${projectId}/members`,
      valid: { email: "bob@example.com", salutation: "Bob", teamBriefing: "Backend." },
    },
    {
      method: "PATCH",
      path: `/v1/projects/${projectId}/members/me`,
      valid: { salutation: "Anička", teamBriefing: "Frontend." },
    },
    { method: "POST", path: `/v1/projects/${projectId}/messages`, valid: { text: "Ahoj Maro" } },
  ];

  it.each([
    ["a NUL", Buffer.from('{"text":"a\\u0000b"}'), "application/json", 400, "invalid_text"],
    [
      "bytes that are not UTF-8",
      Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      "application/json",
      400,
      "invalid_encoding",
    ],
    [
      "a UTF-16 charset",
      Buffer.from('{"text":"Ahoj"}'),
      "application/json; charset=utf-16",
      415,
      "unsupported_charset",
    ],
  ] as const)(
    "refuses a message with %s (%s) and starts no turn",
    async (_name, bytes, type, status, code) => {
      const before = await snapshot();
      const response = await fetch(`${harness.url}/v1/projects/${projectId}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": type },
        body: bytes,
      });
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject({ code, status });
      expect(await snapshot()).toEqual(before);
    },
  );

  it("refuses each with a stable 4xx code, writes nothing and logs no body text", async () => {
    for (const route of routes()) {
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(hostileBodies(route.valid), async (hostile) => {
          const response = await sendHostile(`${harness.url}${route.path}`, {
            method: route.method,
            token,
            hostile,
          });
          const body = response.json as { code?: string };
          expect({ kind: hostile.kind, status: response.status }).toMatchObject({
            status: expect.toSatisfy((s: number) => s >= 400 && s < 500) as number,
          });
          expect(hostile.expectedCodes).toContain(body.code);
          expect(response.text).not.toContain(CANARY);
        }),
        { numRuns: 40 },
      );
      expect(await snapshot()).toEqual(before);
    }
    expect(harness.logs.filter((line) => line.includes(CANARY))).toEqual([]);
    expect(harness.logs.filter((line) => /"level":50/.test(line))).toEqual([]);
  });
});
