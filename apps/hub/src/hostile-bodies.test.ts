import {
  capturingLogger,
  expectHostileBodiesRefused,
  snapshotDatabase,
  type HostileRoute,
} from "@talkide/service-kit/testing";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startHub, type HubFixture } from "./test-support/hub-harness.ts";

/**
 * Every write route of the hub, over real HTTP, against bodies no client should send: each
 * is refused with a 4xx and a stable code, the hub's database is unchanged, and no log line
 * holds any of the body's text.
 */
describe("hostile request bodies on every write route of the hub", () => {
  let hub: HubFixture;
  const { logger, logs } = capturingLogger("talkide-hub");
  let tokens: { admin: string; anna: string };

  beforeAll(async () => {
    // One attempt: the set-up task's delivery to cook settles (its turn fails at once, there is
    // no claude) before the snapshots start.
    hub = await startHub({ logger, daemonEnv: { TALKIDE_DAEMON_MAX_ATTEMPTS: "1" } });
    await hub.addAgent("cook");
    const anna = await hub.addHuman("anna");
    tokens = { admin: hub.api.token, anna };
    // Something to react to and a task to claim, so those routes have a target.
    await hub.hub(anna, "POST", "/tasks", { target: "#general", body: "Bake", title: "Bake" });
    await hub.waitDeliveries("cook", 1);
    const waiting = await hub.test.api.deliveries();
    await hub.test.api.settled(waiting.map((d) => d.id));
  });

  afterAll(async () => {
    await hub.stop();
  });

  const hugeInHub = ["payload_too_large", "text_too_long", "invalid_target", "invalid_body"];
  const routes = (): HostileRoute[] => [
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

  it(
    "refuses each with a stable 4xx code, writes nothing and logs no body text",
    { timeout: 600_000 },
    async () => {
      await expectHostileBodiesRefused({
        baseUrl: hub.url,
        routes: routes(),
        snapshot: () => snapshotDatabase(hub.db),
        logs,
      });
    },
  );
});
