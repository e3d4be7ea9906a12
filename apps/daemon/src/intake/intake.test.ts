import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  makeDelivery,
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";

let dir: string;
let td: TestDaemon;
let intakeToken: string;

beforeAll(async () => {
  dir = await makeTempDir();
  td = await startTestDaemon({
    dataDir: dir,
    childEnv: { FAKE_CLAUDE_STATE_DIR: join(dir, "fake") },
  });
  await td.api.registerAgent("alice", join(dir, "ws-alice"));
  const created = await td.api.call<{ token: string; scope: string }>("POST", "/v1/tokens", {
    name: "message-service",
    scope: "intake",
  });
  expect(created.status).toBe(201);
  intakeToken = created.body.token;
});

afterAll(async () => {
  await td.stop();
  await removeDir(dir);
});

const count = async () => (await td.api.deliveries()).length;

describe("authentication", () => {
  it("refuses a request without a token", async () => {
    const r = await td.api.call("POST", "/v1/agents/alice/deliveries", makeDelivery(), {
      token: null,
    });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: { code: "unauthorized" } });
  });

  it("refuses an unknown token", async () => {
    const r = await td.api.call("POST", "/v1/agents/alice/deliveries", makeDelivery(), {
      token: "tkd_nope",
    });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: { code: "invalid_token" } });
  });

  it("lets an intake token push deliveries but nothing else", async () => {
    const pushed = await td.api.call("POST", "/v1/agents/alice/deliveries", makeDelivery(), {
      token: intakeToken,
    });
    expect(pushed.status).toBe(202);
    const listed = await td.api.call("GET", "/v1/deliveries", undefined, { token: intakeToken });
    expect(listed.status).toBe(403);
    expect(listed.body).toMatchObject({ error: { code: "forbidden" } });
  });

  it("trims a token's name as the contract trims: U+FEFF is kept, U+0085 is white space", async () => {
    const named = await td.api.call<{ name: string }>("POST", "/v1/tokens", {
      name: "\u0085\u00a0\ufeffbot\ufeff ",
    });
    expect(named.status).toBe(201);
    expect(named.body.name).toBe("\ufeffbot\ufeff");
    const blank = await td.api.call("POST", "/v1/tokens", { name: "\u0085\u2028" });
    expect(blank.status).toBe(400);
  });

  it("stops accepting a revoked token", async () => {
    const created = await td.api.call<{ id: string; token: string }>("POST", "/v1/tokens", {
      name: "tmp",
    });
    expect((await td.api.call("DELETE", `/v1/tokens/${created.body.id}`)).status).toBe(200);
    const r = await td.api.call("POST", "/v1/agents/alice/deliveries", makeDelivery(), {
      token: created.body.token,
    });
    expect(r.status).toBe(401);
  });
});

describe("validation: a bad delivery gets a stable code and nothing is stored", () => {
  const cases: [
    string,
    () => { body?: unknown; raw?: string | Uint8Array; contentType?: string },
    number,
    object,
  ][] = [
    ["malformed JSON", () => ({ raw: "{not json" }), 400, { code: "invalid_json" }],
    ["a JSON array", () => ({ body: [] }), 400, { code: "invalid_field" }],
    [
      "no created_at (never stamped with now)",
      () => {
        const d = makeDelivery();
        delete d["created_at"];
        return { body: d };
      },
      400,
      { code: "missing_field", path: "created_at" },
    ],
    [
      "an unsafe message id",
      () => ({ body: makeDelivery({ id: "a b; rm -rf" }) }),
      400,
      { code: "invalid_field", path: "id" },
    ],
    [
      "no conversation id (cannot be addressed)",
      () => {
        const d = makeDelivery();
        delete d["conversation_id"];
        return { body: d };
      },
      400,
      { code: "missing_field", path: "conversation_id" },
    ],
    [
      "conflicting message ids",
      () => ({ body: makeDelivery({ id: "m-1", message_id: "m-2" }) }),
      400,
      { code: "conflicting_field", path: "message_id" },
    ],
    [
      "a NUL in the text",
      () => ({ body: makeDelivery({ text: "a\u0000b" }) }),
      400,
      { code: "invalid_text", path: "text" },
    ],
    [
      "a NUL in the conversation charter",
      () => ({ body: makeDelivery({ conversation_charter: "x\u0000" }) }),
      400,
      { code: "invalid_text", path: "conversation_charter" },
    ],
    [
      "a lone surrogate in the text",
      () => ({ body: makeDelivery({ text: "\ud800" }) }),
      400,
      { code: "invalid_text", path: "text" },
    ],
    [
      "bytes that are not UTF-8",
      () => ({
        raw: Buffer.concat([
          Buffer.from('{"text":"'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from('"}'),
        ]),
        contentType: "application/json",
      }),
      400,
      { code: "invalid_encoding" },
    ],
    [
      "a charset other than UTF-8",
      () => ({ body: makeDelivery(), contentType: "application/json; charset=utf-16" }),
      415,
      { code: "unsupported_charset" },
    ],
    [
      "text/plain",
      () => ({ raw: "hello", contentType: "text/plain" }),
      415,
      { code: "unsupported_media_type" },
    ],
    [
      "a body over 1 MiB",
      () => ({ body: makeDelivery({ text: "x".repeat(1024 * 1024 + 1) }) }),
      413,
      { code: "payload_too_large" },
    ],
  ];

  it.each(cases)("%s", async (_name, make, status, error) => {
    const before = await count();
    const { body, raw, contentType } = make();
    const r = await td.api.call("POST", "/v1/agents/alice/deliveries", body, {
      ...(raw === undefined ? {} : { rawBody: raw }),
      ...(contentType === undefined ? {} : { contentType }),
    });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ error: error });
    expect(await count()).toBe(before);
  });

  it("degrades, never drops: a delivery that can be addressed and dated is accepted", async () => {
    const before = await count();
    const d = makeDelivery({
      id: "m-degraded",
      reason: "gossip",
      sender_type: "robot",
      reactions_summary: "not a list",
      message_metadata: { quote: { kind: "pull_request", ref: " " } },
    });
    delete d["seq"];
    const r = await td.api.deliver("alice", d);
    expect(r.status).toBe(202);
    expect(await count()).toBe(before + 1);
  });

  it("refuses an unknown agent with 404", async () => {
    const before = await count();
    const r = await td.api.deliver("bob", makeDelivery());
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: { code: "unknown_agent", path: "agentId" } });
    expect(await count()).toBe(before);
  });

  it("refuses an agent id outside the safe charset", async () => {
    const r = await td.api.call(
      "POST",
      `/v1/agents/${encodeURIComponent("a b")}/deliveries`,
      makeDelivery(),
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: "invalid_agent_id" } });
  });
});

describe("idempotency", () => {
  it("accepts the same delivery once, and reports the repeat as a duplicate of the stored one", async () => {
    const delivery = makeDelivery();
    const first = await td.api.deliver("alice", delivery);
    const second = await td.api.deliver("alice", { ...delivery, text: "edited later" });
    expect(first.status).toBe(202);
    expect(first.body.status).toBe("accepted");
    expect(second.status).toBe(200);
    expect(second.body.status).toBe("duplicate");
    expect(second.body.delivery.id).toBe(first.body.delivery.id);
    const [settled] = await td.api.settled([first.body.delivery.id]);
    expect(settled?.state).toBe("completed");
    const mine = (await td.api.deliveries()).filter((d) => d.messageId === delivery["id"]);
    expect(mine).toHaveLength(1);
    expect(await td.api.turns(`&deliveryId=${first.body.delivery.id}`)).toHaveLength(1);
  });

  it("accepts exactly one of 20 concurrent pushes of the same delivery", async () => {
    const delivery = makeDelivery({ conversation_id: "c-dup" });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => td.api.deliver("alice", delivery)),
    );
    expect(results.filter((r) => r.status === 202)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200 && r.body.status === "duplicate")).toHaveLength(
      19,
    );
    expect(new Set(results.map((r) => r.body.delivery.id)).size).toBe(1);
    const id = results[0]?.body.delivery.id ?? "";
    await td.api.settled([id]);
    expect(await td.api.turns(`&deliveryId=${id}`)).toHaveLength(1);
  });

  it("treats the same message for two agents as two deliveries", async () => {
    await td.api.registerAgent("carol", join(dir, "ws-carol"));
    const delivery = makeDelivery();
    const a = await td.api.deliver("alice", delivery);
    const c = await td.api.deliver("carol", delivery);
    expect([a.status, c.status]).toEqual([202, 202]);
    expect(a.body.delivery.id).not.toBe(c.body.delivery.id);
    await td.api.settled([a.body.delivery.id, c.body.delivery.id]);
  });
});

describe("durability", () => {
  it("has stored a delivery when it acknowledges it: a restart right after still runs it", async () => {
    const own = await makeTempDir();
    try {
      const first = await startTestDaemon({ dataDir: own, config: { concurrency: 1 } });
      await first.api.registerAgent("dora", join(own, "ws"));
      const ack = await first.api.deliver("dora", makeDelivery());
      expect(ack.status).toBe(202);
      await first.stop();
      const second = await startTestDaemon({ dataDir: own });
      try {
        const [done] = await second.api.settled([ack.body.delivery.id]);
        expect(done?.state).toBe("completed");
      } finally {
        await second.stop();
      }
    } finally {
      await removeDir(own);
    }
  });
});
