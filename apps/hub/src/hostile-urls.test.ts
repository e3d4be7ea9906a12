import { errorShapeFault } from "@talkide/service-kit/testing";
import { walkHostileUrls } from "@talkide/strict-json/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, type HubFixture } from "./test-support/hub-harness.ts";

/**
 * Every route of the hub, taken from its router (so a new one is walked without anyone
 * listing it), over real HTTP, with hostile path and query values, without a token, as a
 * member and as the admin: no 5xx, every error in the documented shape, nothing repeated
 * back. And errors tell a member nothing about what they may not see.
 */
describe("hostile URLs on every route of the hub", () => {
  let hub: HubFixture;
  let anna: string;
  let bob: string;

  beforeAll(async () => {
    hub = await startHub({ daemonEnv: { TALKIDE_DAEMON_MAX_ATTEMPTS: "1" } });
    anna = await hub.addHuman("anna");
    bob = await hub.addHuman("bob");
    await hub.createGroup("bakers", [{ handle: "anna", role: "owner" }]);
  });

  afterAll(async () => {
    await hub.stop();
  });

  async function get(token: string, path: string) {
    const response = await fetch(`${hub.url}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await response.text();
    return {
      status: response.status,
      text,
      fault: errorShapeFault({ contentType: response.headers.get("content-type") ?? "", text }),
      code:
        response.status < 400
          ? null
          : (JSON.parse(text) as { error?: { code?: string } }).error?.code,
    };
  }

  it(
    "gives each a stable 4xx in the error shape, repeating nothing",
    { timeout: 600_000 },
    async () => {
      const routes = hub.running.routes;
      expect(routes.map((r) => `${r.method} ${r.url}`)).toContain("GET /hub/v1/attachments/:id");
      const faults = await walkHostileUrls({
        baseUrl: hub.url,
        routes,
        // Nothing these name exists, so the walk changes nothing.
        params: { id: "att_none", handle: "nobody", name: "nothing" },
        queryNames: ["target", "around", "before", "limit", "status"],
        tokens: [null, anna, hub.api.token],
        errorShapeFault,
      });
      expect(faults).toEqual([]);
    },
  );

  it.each([
    ["GET", "/hub/v1/messages?target=%23general&before=2147483648", 400, "invalid_query"],
    ["GET", "/hub/v1/attachments/%00", 400, "invalid_text"],
    ["GET", "/hub/v1/attachments/a%00b", 400, "invalid_text"],
    ["GET", "/hub/v1/messages?target=%23general&around=%00", 400, "invalid_text"],
    ["PUT", "/hub/v1/admin/groups/%00/members/alice", 400, "invalid_text"],
    ["GET", "/hub/v1/attachments/%ff", 400, "invalid_encoding"],
    ["GET", `/hub/v1/attachments/${"a".repeat(500)}`, 414, "parameter_too_long"],
  ])(
    "answers %s %.70s with a stable %i (it was a 500 or Fastify's own shape)",
    async (method, path, status, code) => {
      const admin = path.startsWith("/hub/v1/admin/");
      const response = await fetch(`${hub.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${admin ? hub.api.token : anna}`,
          ...(method === "PUT" ? { "content-type": "application/json" } : {}),
        },
        ...(method === "PUT" ? { body: "{}" } : {}),
      });
      const text = await response.text();
      expect({
        status: response.status,
        code: (JSON.parse(text) as { error: { code: string } }).error.code,
        fault: errorShapeFault({ contentType: response.headers.get("content-type") ?? "", text }),
      }).toEqual({ status, code, fault: null });
      expect(text).not.toContain("aaaaaaaaaa");
    },
  );

  it("answers an outsider asking for an attachment exactly as for one that does not exist", async () => {
    const sent = await hub.hub<{ message: { attachments: { id: string }[] } }>(
      anna,
      "POST",
      "/messages",
      {
        target: "#bakers",
        body: "The recipe",
        attachments: [
          { name: "recipe.txt", contentBase64: Buffer.from("flour").toString("base64") },
        ],
      },
    );
    const id = sent.body.message.attachments[0]?.id ?? "";
    expect((await get(anna, `/hub/v1/attachments/${id}`)).status).toBe(200);
    const outsider = await get(bob, `/hub/v1/attachments/${id}`);
    const missing = await get(bob, "/hub/v1/attachments/att_does_not_exist");
    expect(outsider).toEqual({ ...missing });
    expect(outsider).toMatchObject({ status: 404, code: "unknown_attachment", fault: null });
  });

  it("answers an outsider naming a message of a conversation they are not in as one that does not exist", async () => {
    const sent = await hub.hub<{ message: { id: string } }>(anna, "POST", "/messages", {
      target: "#bakers",
      body: "Secret",
    });
    const around = await get(
      bob,
      `/hub/v1/messages?target=%23general&around=${sent.body.message.id}`,
    );
    const none = await get(bob, "/hub/v1/messages?target=%23general&around=msg_none");
    expect(around).toEqual(none);
    const thread = await get(bob, `/hub/v1/messages?target=%23bakers:${sent.body.message.id}`);
    const noThread = await get(bob, "/hub/v1/messages?target=%23bakers:msg_none");
    expect(thread).toEqual(noThread);
    expect(thread.code).toBe("not_a_member");
  });
});
