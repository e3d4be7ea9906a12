import { join } from "node:path";
import { Writable } from "node:stream";
import { fc } from "@fast-check/vitest";
import { CANARY, hostileBodies, sendHostile } from "@talkide/strict-json/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, type HubFixture } from "../hub/test-support/hub-harness.ts";
import { createLogger } from "../logger.ts";
import { makeDelivery } from "../test-support/harness.ts";

/**
 * Every write route of the daemon and of its hub, over real HTTP, against bodies no client
 * should send: each is refused with a 4xx and a stable code, the database is unchanged, and
 * no log line holds any of the body's text.
 */
describe("hostile request bodies on every write route of the daemon and the hub", () => {
  let hub: HubFixture;
  const logs: string[] = [];
  let tokens: { admin: string; intake: string; anna: string };

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString("utf8").split("\n")) if (line !== "") logs.push(line);
        callback();
      },
    });
    // One attempt: the set-up task's delivery to cook settles (its turn fails at once, there is
    // no claude) before the snapshots start.
    hub = await startHub({ logger: createLogger("debug", sink), config: { maxAttempts: 1 } });
    await hub.addAgent("cook");
    const anna = await hub.addHuman("anna");
    const intake = await hub.api.call<{ token: string }>("POST", "/v1/tokens", {
      name: "message-service",
      scope: "intake",
    });
    tokens = { admin: hub.api.token, intake: intake.body.token, anna };
    // Something to react to and a task to claim, so those routes have a target.
    await hub.hub(anna, "POST", "/tasks", { target: "#general", body: "Bake", title: "Bake" });
    const waiting = await hub.api.deliveries();
    await hub.api.settled(waiting.map((d) => d.id));
  }, 180_000);

  afterAll(async () => {
    await hub.stop();
  });

  /** Every row of every table, as one comparable value. */
  async function snapshot(): Promise<unknown> {
    const db = hub.test.daemon.db;
    const { rows: tables } = await sql<{ name: string }>`
      SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
      WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'
      ORDER BY 1`.execute(db);
    const state: Record<string, unknown> = {};
    for (const { name } of tables) {
      const { rows } = await sql<{ digest: string | null }>`
        SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest
        FROM ${sql.table(name)} t`.execute(db);
      state[name] = rows[0]?.digest ?? null;
    }
    return state;
  }

  const hugeInHub = ["payload_too_large", "text_too_long", "invalid_target", "invalid_body"];
  const routes = (): Array<{
    method: string;
    path: string;
    token: string;
    valid: Parameters<typeof hostileBodies>[0];
    hugeCodes?: readonly string[];
  }> => [
    {
      method: "PUT",
      path: "/v1/agents/scout",
      token: tokens.admin,
      valid: { workspaceDir: join(hub.dataDir, "ws-scout") },
    },
    { method: "POST", path: "/v1/agents/cook/reset", token: tokens.admin, valid: { note: "x" } },
    {
      method: "POST",
      path: "/v1/tokens",
      token: tokens.admin,
      valid: { name: "svc", scope: "intake" },
    },
    {
      method: "DELETE",
      path: "/v1/tokens/00000000-0000-4000-8000-000000000000",
      token: tokens.admin,
      valid: { note: "x" },
    },
    {
      method: "POST",
      path: "/v1/agents/cook/deliveries",
      token: tokens.intake,
      valid: makeDelivery({ conversation_charter: "Bake bread." }) as never,
    },
    {
      method: "POST",
      path: "/hub/v1/admin/members",
      token: tokens.admin,
      valid: { kind: "human", handle: "zed" },
    },
    {
      method: "POST",
      path: "/hub/v1/admin/members/anna/tokens",
      token: tokens.admin,
      valid: { note: "x" },
    },
    {
      method: "POST",
      path: "/hub/v1/admin/groups",
      token: tokens.admin,
      valid: { name: "bakers", members: [{ handle: "anna" }], description: "Bread." },
    },
    {
      method: "PUT",
      path: "/hub/v1/admin/groups/general/members/cook",
      token: tokens.admin,
      valid: { role: "member" },
    },
    {
      method: "DELETE",
      path: "/hub/v1/admin/groups/general/members/cook",
      token: tokens.admin,
      valid: { note: "x" },
    },
    {
      method: "POST",
      path: "/hub/v1/messages",
      token: tokens.anna,
      valid: { target: "#general", body: "Ahoj @cook" },
      hugeCodes: hugeInHub,
    },
    {
      method: "POST",
      path: "/hub/v1/reactions",
      token: tokens.anna,
      valid: { messageId: "m1", emoji: "👍" },
    },
    {
      method: "PUT",
      path: "/hub/v1/charter",
      token: tokens.anna,
      valid: { target: "#general", charter: "We bake." },
    },
    {
      method: "POST",
      path: "/hub/v1/tasks",
      token: tokens.anna,
      valid: { target: "#general", body: "Knead", title: "Knead", assignee: "@cook" },
      hugeCodes: hugeInHub,
    },
    {
      method: "POST",
      path: "/hub/v1/tasks/claim",
      token: tokens.anna,
      valid: { target: "#general" },
    },
    {
      method: "POST",
      path: "/hub/v1/tasks/unclaim",
      token: tokens.anna,
      valid: { target: "#general" },
    },
    {
      method: "POST",
      path: "/hub/v1/tasks/status",
      token: tokens.anna,
      valid: { target: "#general", status: "done" },
    },
  ];

  // Seventeen routes, each with its own run of hostile bodies over real HTTP.
  it(
    "refuses each with a stable 4xx code, writes nothing and logs no body text",
    { timeout: 600_000 },
    async () => {
      for (const route of routes()) {
        const before = await snapshot();
        await fc.assert(
          fc.asyncProperty(hostileBodies(route.valid), async (hostile) => {
            const response = await sendHostile(`${hub.url}${route.path}`, {
              method: route.method,
              token: route.token,
              hostile,
            });
            const body = response.json as { error?: { code?: string } };
            const where = `${route.method} ${route.path} ${hostile.kind}`;
            expect({ where, status: response.status >= 400 && response.status < 500 }).toEqual({
              where,
              status: true,
            });
            const codes =
              hostile.kind === "huge" && route.hugeCodes !== undefined
                ? route.hugeCodes
                : hostile.expectedCodes;
            expect({ where, code: body.error?.code }).toEqual({
              where,
              code: expect.toBeOneOf([...codes]) as string,
            });
            expect(response.text).not.toContain(CANARY);
          }),
          { numRuns: 25 },
        );
        expect({ route: route.path, state: await snapshot() }).toEqual({
          route: route.path,
          state: before,
        });
      }
      expect(logs.filter((line) => line.includes(CANARY))).toEqual([]);
      expect(logs.filter((line) => /"level":50/.test(line))).toEqual([]);
    },
  );
});
