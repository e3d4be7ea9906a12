import { join } from "node:path";
import { walkHostileUrls } from "@talkide/strict-json/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";
import { errorShapeFault } from "@talkide/service-kit/testing";

/**
 * Every route of the daemon, taken from its router (so a new one is walked without anyone
 * listing it), over real HTTP, with hostile path and query values, with and without tokens:
 * no 5xx, every error in the documented shape, nothing repeated back.
 */
describe("hostile URLs on every route of the daemon", () => {
  let dir: string;
  let td: TestDaemon;
  let intake: string;

  beforeAll(async () => {
    dir = await makeTempDir();
    td = await startTestDaemon({
      dataDir: dir,
      config: { maxAttempts: 1, claudePath: join(dir, "no-claude-here") },
    });
    await td.api.registerAgent("cook", join(dir, "ws-cook"));
    const created = await td.api.call<{ token: string }>("POST", "/v1/tokens", {
      name: "message-service",
      scope: "intake",
    });
    intake = created.body.token;
  });

  afterAll(async () => {
    await td.stop();
    await removeDir(dir);
  });

  it(
    "gives each a stable 4xx in the error shape, repeating nothing",
    { timeout: 600_000 },
    async () => {
      const routes = td.daemon.routes;
      expect(routes.map((r) => `${r.method} ${r.url}`)).toContain("GET /v1/deliveries");
      const faults = await walkHostileUrls({
        baseUrl: td.daemon.url,
        routes,
        params: {
          agentId: "cook",
          deliveryId: "00000000-0000-4000-8000-000000000000",
          tokenId: "00000000-0000-4000-8000-000000000000",
        },
        queryNames: ["limit", "beforeSeq", "agentId", "conversationId", "sessionId", "payload"],
        tokens: [null, td.api.token, intake],
        errorShapeFault,
      });
      expect(faults).toEqual([]);
    },
  );

  it.each([
    "/v1/deliveries?beforeSeq=2147483648",
    "/v1/deliveries?agentId=%00",
    "/v1/deliveries?conversationId=%00",
    "/v1/sessions?agentId=%00",
    "/v1/sessions?conversationId=%00",
    "/v1/turns?agentId=%00",
  ])("answers GET %s with a stable 4xx (it was a 500)", async (path) => {
    const response = await fetch(`${td.daemon.url}${path}`, {
      headers: { authorization: `Bearer ${td.api.token}` },
    });
    const body = (await response.json()) as { error: { code: string } };
    expect({ status: response.status, code: body.error.code }).toEqual({
      status: 400,
      code: path.includes("%00") ? "invalid_text" : "invalid_query",
    });
  });

  it("answers the router's own refusals in the error shape, without the path", async () => {
    const cases = [
      { path: "/v1/agents/%ff", status: 400, code: "invalid_encoding" },
      { path: `/v1/agents/${"a".repeat(300)}`, status: 414, code: "parameter_too_long" },
      { path: "/v1/nothing-here", status: 404, code: "not_found" },
    ];
    for (const c of cases) {
      const response = await fetch(`${td.daemon.url}${c.path}`, {
        headers: { authorization: `Bearer ${td.api.token}` },
      });
      const text = await response.text();
      expect({
        path: c.path,
        status: response.status,
        fault: errorShapeFault({ contentType: response.headers.get("content-type") ?? "", text }),
      }).toEqual({ path: c.path, status: c.status, fault: null });
      expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe(c.code);
      expect(text).not.toContain(c.path.split("/").at(-1));
    }
  });
});
