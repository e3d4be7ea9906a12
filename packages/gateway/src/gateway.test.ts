import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { pgliteBackend, postgresBackend } from "@talkide/service-kit/testing";
import { limitSettings } from "./limits.ts";
import { DEFAULT_PRICES, priceOf, requestCostUsd, roundUsd } from "./prices.ts";
import { NO_USAGE } from "./usage.ts";
import {
  messagesBody,
  PROVIDER_KEY,
  reportedUsage,
  send,
  startBench,
  type Bench,
} from "./test-support/bench.ts";

const HEADERS = {
  "content-type": "application/json",
  "anthropic-version": "2023-06-01",
  "anthropic-beta": "prompt-caching-2024-07-31,extended-cache-ttl-2025-04-11",
  "user-agent": "claude-cli/2.1.330 (external, sdk-cli)",
  "x-app": "cli",
  "x-claude-code-session-id": "session-1",
  "x-custom-header": "kept as it is",
};

/** Every stored row, in order, as the columns tests compare. */
async function rows(bench: Bench) {
  const { rows: found } = await sql<Record<string, unknown>>`SELECT turn_id, project_key, user_key,
      session_key, claude_session_id, path, model, status, refusal,
      input_tokens::float8 AS input, cache_write_5m_tokens::float8 AS write5m,
      cache_write_1h_tokens::float8 AS write1h, cache_read_tokens::float8 AS read,
      output_tokens::float8 AS output, cost_usd::float8 AS cost, miss, miss_phrase
    FROM gateway_requests ORDER BY id`.execute(bench.db);
  return found;
}

describe("the gateway, forwarding", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await startBench({ fake: { minimumCacheableTokens: 1 } });
  });
  afterAll(async () => {
    await bench.close();
  });

  it("forwards path, query, headers and body byte for byte, with the provider key as the only change", async () => {
    const credential = bench.gateway.issue({ projectKey: "project-1" });
    // Odd spacing, escapes and non-ASCII: a re-serialised body would differ.
    const body = `{"model":"claude-opus-5-5", "max_tokens":16,"stream":true,\n"messages":[{"role":"user","content":"P\\u0159\u00edli\u0161 \u017elu\u0165ou\u010dk\u00fd k\u016f\u0148 \ud83d\udc34"}]}`;
    const before = bench.fake.requests.length;
    const response = await send(bench.gateway.url, {
      path: "/v1/messages?beta=true",
      headers: { ...HEADERS, "x-api-key": credential.token },
      body,
    });
    expect(response.status).toBe(200);
    const [received] = bench.fake.requests.slice(before);
    expect(received?.path).toBe("/v1/messages");
    expect(received?.query).toBe("beta=true");
    expect(Buffer.from(received?.rawBody ?? "").equals(Buffer.from(body))).toBe(true);
    // Host names the provider; connection is hop-by-hop (each side its own).
    const headers: Record<string, string> = { ...received?.headers };
    const host = headers["host"];
    delete headers["host"];
    delete headers["connection"];
    expect(host).toBe(new URL(bench.fake.url).host);
    expect(headers).toEqual({
      ...HEADERS,
      "content-length": String(Buffer.byteLength(body)),
      "x-api-key": PROVIDER_KEY,
    });
  });

  it("sends an OAuth token as authorization instead, dropping the client's", async () => {
    const other = await startBench({ gateway: { credential: { authToken: "oauth-canary" } } });
    try {
      const credential = other.gateway.issue({ projectKey: "p" });
      await send(other.gateway.url, {
        path: "/v1/messages",
        headers: { ...HEADERS, authorization: `Bearer ${credential.token}` },
        body: messagesBody({ messages: [{ role: "user", text: "hi" }] }),
      });
      expect(other.fake.requests[0]?.headers).toMatchObject({
        authorization: "Bearer oauth-canary",
      });
      expect(other.fake.requests[0]?.headers["x-api-key"]).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it("refuses an unknown, missing or revoked token with 401, and nothing reaches the provider", async () => {
    const credential = bench.gateway.issue({ projectKey: "project-1" });
    credential.revoke();
    expect(credential.revoked).toBe(true);
    const before = bench.fake.requests.length;
    for (const headers of [
      { "x-api-key": credential.token },
      { "x-api-key": "tkgw_unknown" },
      { "x-api-key": PROVIDER_KEY },
      { authorization: `Bearer ${credential.token}` },
      {},
    ]) {
      const refused = await send(bench.gateway.url, {
        path: "/v1/messages",
        headers: { ...HEADERS, ...headers },
        body: messagesBody({ messages: [{ role: "user", text: "hi" }] }),
      });
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body.toString("utf8"))).toEqual({
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      });
    }
    expect(bench.fake.requests.length).toBe(before);
  });

  it("stores each request's usage exactly as the provider reported it, by turn, and sums a turn", async () => {
    const credential = bench.gateway.issue({ projectKey: "project-2" });
    credential.attach({ turnId: "turn-a", userKey: "user-1", sessionKey: "s-1" });
    const sessionHeaders = {
      ...HEADERS,
      "x-claude-code-session-id": "session-usage",
      "x-api-key": credential.token,
    };
    const reported = [];
    const conversation = [
      { role: "user", text: "První zpráva, dost dlouhá na to, aby se něco zapsalo do cache." },
    ];
    for (const stream of [true, false, true]) {
      const response = await send(bench.gateway.url, {
        path: "/v1/messages",
        headers: sessionHeaders,
        body: messagesBody({ messages: conversation, stream }),
      });
      expect(response.status).toBe(200);
      if (stream) {
        reported.push(reportedUsage(response.body));
      } else {
        const u = (
          JSON.parse(response.body.toString("utf8")) as {
            usage: {
              input_tokens: number;
              cache_read_input_tokens: number;
              output_tokens: number;
              cache_creation: {
                ephemeral_5m_input_tokens: number;
                ephemeral_1h_input_tokens: number;
              };
            };
          }
        ).usage;
        reported.push({
          input: u.input_tokens,
          write5m: u.cache_creation.ephemeral_5m_input_tokens,
          write1h: u.cache_creation.ephemeral_1h_input_tokens,
          read: u.cache_read_input_tokens,
          output: u.output_tokens,
        });
      }
      conversation.push(
        { role: "assistant", text: "Done." },
        { role: "user", text: `Další zpráva ${conversation.length}` },
      );
    }
    credential.detach();
    // Called right after the client read its answers: it waits for their rows.
    const usage = await bench.gateway.turnUsage("turn-a");
    const stored = (await rows(bench)).filter((r) => r["turn_id"] === "turn-a");
    expect(
      stored.map((r) => ({
        input: r["input"],
        write5m: r["write5m"],
        write1h: r["write1h"],
        read: r["read"],
        output: r["output"],
      })),
    ).toEqual(reported);
    // The fake's own ledger agrees: what its cache accounted is what was stored.
    const ledger = bench.fake.cacheLedger().slice(-3);
    expect(
      ledger.map((e) => ({
        input: e.uncached,
        write5m: e.write5m,
        write1h: e.write1h,
        read: e.read,
      })),
    ).toEqual(reported.map(({ output: _output, ...rest }) => rest));
    expect(
      stored.every(
        (r) =>
          r["project_key"] === "project-2" &&
          r["user_key"] === "user-1" &&
          r["session_key"] === "s-1",
      ),
    ).toBe(true);
    const price = priceOf(DEFAULT_PRICES, "claude-opus-5-5");
    const costs = reported.map((r) =>
      roundUsd(
        requestCostUsd(price, {
          ...NO_USAGE,
          inputTokens: r.input,
          cacheWrite5mTokens: r.write5m,
          cacheWrite1hTokens: r.write1h,
          cacheReadTokens: r.read,
          outputTokens: r.output,
        }),
      ),
    );
    expect(stored.map((r) => r["cost"])).toEqual(costs);
    expect(usage).toMatchObject({
      requests: 3,
      inputTokens: reported.reduce((s, r) => s + r.input, 0),
      cacheWrite5mTokens: reported.reduce((s, r) => s + r.write5m, 0),
      cacheWrite1hTokens: reported.reduce((s, r) => s + r.write1h, 0),
      cacheReadTokens: reported.reduce((s, r) => s + r.read, 0),
      outputTokens: reported.reduce((s, r) => s + r.output, 0),
      costUsd: roundUsd(costs.reduce((s, c) => s + c, 0)),
      models: ["claude-opus-5-5"],
      miss: { reason: "new_session" },
    });
    expect(reported.some((r) => r.write1h > 0)).toBe(true);
    expect(reported.at(-1)?.read).toBeGreaterThan(0);
    // After detach a request counts for the project only.
    await send(bench.gateway.url, {
      path: "/v1/messages",
      headers: sessionHeaders,
      body: messagesBody({ messages: conversation }),
    });
    await bench.gateway.turnUsage("none");
    await expect
      .poll(
        async () =>
          (await rows(bench)).filter((r) => r["project_key"] === "project-2").at(-1)?.["turn_id"],
      )
      .toBeNull();
  });

  it("keeps the provider key out of everything it returns and logs", async () => {
    const credential = bench.gateway.issue({ projectKey: "project-3" });
    const answers = [
      await send(bench.gateway.url, {
        path: "/v1/messages",
        headers: { ...HEADERS, "x-api-key": credential.token },
        body: messagesBody({ messages: [{ role: "user", text: "hi" }] }),
      }),
      await send(bench.gateway.url, {
        path: "/v1/nowhere",
        method: "GET",
        headers: { "x-api-key": credential.token },
      }),
      await send(bench.gateway.url, {
        path: "/v1/messages",
        headers: { "x-api-key": "wrong" },
        body: "{}",
      }),
      await send(bench.gateway.url, {
        path: "/v1/messages/count_tokens",
        headers: { ...HEADERS, "x-api-key": credential.token },
        body: messagesBody({ messages: [{ role: "user", text: "hi" }] }),
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 404, 401, 200]);
    for (const answer of answers) {
      expect(JSON.stringify(answer.headers)).not.toContain(PROVIDER_KEY);
      expect(answer.body.toString("latin1")).not.toContain(PROVIDER_KEY);
    }
    await bench.gateway.turnUsage("none");
    expect(bench.logs.join("\n")).not.toContain(PROVIDER_KEY);
    expect(JSON.stringify(await rows(bench))).not.toContain(PROVIDER_KEY);
  });

  it("answers 502 in the API's shape when the provider cannot be reached, without the key", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) =>
      closed.close(() => {
        resolve();
      }),
    );
    const gateway = await bench.restart({ upstreamUrl: `http://127.0.0.1:${port}` });
    const credential = gateway.issue({ projectKey: "project-4" });
    credential.attach({ turnId: "turn-unreachable", userKey: null });
    const answer = await send(gateway.url, {
      path: "/v1/messages",
      headers: { ...HEADERS, "x-api-key": credential.token },
      body: messagesBody({ messages: [{ role: "user", text: "hi" }] }),
    });
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body.toString("utf8"))).toMatchObject({
      type: "error",
      error: { type: "api_error" },
    });
    expect(answer.body.toString("latin1")).not.toContain(PROVIDER_KEY);
    expect(await gateway.turnUsage("turn-unreachable")).toMatchObject({ requests: 1, costUsd: 0 });
    expect(bench.logs.join("\n")).not.toContain(PROVIDER_KEY);
    await bench.restart({ upstreamUrl: bench.fake.url });
  });
});

describe("the gateway, streaming the provider's bytes", () => {
  let upstream: Server;
  let bench: Bench;
  /** What the scripted provider writes, in these pieces (one cuts a UTF-8 character in two). */
  const pieces = [
    'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-opus-5-5","usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Ko',
    "\u0148",
    ' \u017elu\u0165ou\u010dk\u00fd"}}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":7}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].map((p) => Buffer.from(p));
  const [start, deltaHead, cutCharacter, deltaTail, end] = pieces as [
    Buffer,
    Buffer,
    Buffer,
    Buffer,
    Buffer,
  ];
  const split = Buffer.concat([deltaHead, cutCharacter]);
  const cut = [
    start,
    split.subarray(0, split.length - 1),
    Buffer.concat([split.subarray(split.length - 1), deltaTail]),
    end,
  ];
  let sawKey: string | undefined;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      sawKey = req.headers["x-api-key"] as string | undefined;
      req.resume();
      req.on("end", () => {
        res.writeHead(200, {
          "content-type": "text/event-stream; charset=utf-8",
          "request-id": "req_42",
          "x-odd-header": "kept as sent",
        });
        let i = 0;
        const next = (): void => {
          const piece = cut[i++];
          if (piece === undefined) {
            res.end();
            return;
          }
          res.write(piece);
          setTimeout(next, 5);
        };
        next();
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    bench = await startBench({
      gateway: { upstreamUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
    });
  });
  afterAll(async () => {
    await bench.close();
    await new Promise<void>((resolve) =>
      upstream.close(() => {
        resolve();
      }),
    );
  });

  it("streams the answer back byte for byte with its status and headers, and reads its usage", async () => {
    const credential = bench.gateway.issue({ projectKey: "p" });
    credential.attach({ turnId: "turn-stream", userKey: "u" });
    const answer = await send(bench.gateway.url, {
      path: "/v1/messages",
      headers: { ...HEADERS, "x-api-key": credential.token },
      body: messagesBody({ messages: [{ role: "user", text: "hi" }] }),
    });
    expect(sawKey).toBe(PROVIDER_KEY);
    expect(answer.status).toBe(200);
    expect(answer.body.equals(Buffer.concat(cut))).toBe(true);
    expect(answer.headers).toMatchObject({
      "content-type": "text/event-stream; charset=utf-8",
      "request-id": "req_42",
      "x-odd-header": "kept as sent",
    });
    expect(await bench.gateway.turnUsage("turn-stream")).toMatchObject({
      inputTokens: 3,
      outputTokens: 7,
      requests: 1,
    });
  });
});

describe.each([
  { backend: pgliteBackend() },
  { backend: postgresBackend("The gateway's PostgreSQL suite") },
])("limits on $backend.name", ({ backend }) => {
  const benches: Bench[] = [];
  beforeAll(async () => {
    if (backend.available) await backend.setup();
  });
  afterEach(async () => {
    for (const b of benches.splice(0)) await b.close();
  });
  afterAll(async () => {
    if (backend.available) await backend.teardown();
  });

  it.skipIf(!backend.available)(
    "refuses a scope over a limit before anything leaves, on every instance, and records it on the turn",
    async () => {
      const databaseUrl = await backend.newDatabase();
      const limits = limitSettings({
        TALKIDE_LIMIT_USER_DAY_USD: 0.0001,
        TALKIDE_LIMIT_PROJECT_DAY_TOKENS: 1_000_000,
      });
      const a = await startBench({ databaseUrl, gateway: { limits } });
      benches.push(a);
      const credential = a.gateway.issue({ projectKey: "project-l" });
      credential.attach({ turnId: "turn-1", userKey: "anna" });
      expect(await a.gateway.checkLimits({ projectKey: "project-l", userKey: "anna" })).toBeNull();
      const first = await send(a.gateway.url, {
        path: "/v1/messages",
        headers: { ...HEADERS, "x-api-key": credential.token },
        body: messagesBody({ messages: [{ role: "user", text: "x".repeat(400) }] }),
      });
      expect(first.status).toBe(200);
      await a.gateway.turnUsage("turn-1");
      credential.attach({ turnId: "turn-2", userKey: "anna" });
      const before = a.fake.requests.length;
      const refused = await send(a.gateway.url, {
        path: "/v1/messages",
        headers: { ...HEADERS, "x-api-key": credential.token },
        body: messagesBody({ messages: [{ role: "user", text: "again" }] }),
      });
      expect(refused.status).toBe(429);
      expect(refused.headers["x-should-retry"]).toBe("false");
      const error = JSON.parse(refused.body.toString("utf8")) as {
        type: string;
        error: { type: string; message: string };
      };
      expect(error).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
      expect(error.error.message).toMatch(
        /^Your daily spending limit of \$0\.0001 is reached \(\$0\.\d+ used today \(UTC\)\)\. .*the service's operator can raise it with TALKIDE_LIMIT_USER_DAY_USD\.$/,
      );
      expect(a.fake.requests.length).toBe(before);
      expect(await a.gateway.refusalOf("turn-2")).toMatchObject({
        scope: "user",
        period: "day",
        measure: "usd",
        cap: 0.0001,
        setting: "TALKIDE_LIMIT_USER_DAY_USD",
      });
      expect(await a.gateway.refusalOf("turn-1")).toBeNull();
      // Another member of the project is not over their own limit.
      expect(await a.gateway.checkLimits({ projectKey: "project-l", userKey: "bob" })).toBeNull();
      // A second instance on the same database sees the same sums.
      if (databaseUrl !== null) {
        const b = await startBench({ databaseUrl, gateway: { limits } });
        benches.push(b);
        expect(
          await b.gateway.checkLimits({ projectKey: "project-l", userKey: "anna" }),
        ).toMatchObject({ scope: "user", setting: "TALKIDE_LIMIT_USER_DAY_USD" });
      }
      const totals = await a.gateway.projectTotals("project-l");
      expect(totals.day.usd).toBeGreaterThan(0);
      expect(totals.month).toMatchObject({ usd: totals.day.usd, tokens: totals.day.tokens });
      expect(totals.day.since).toMatch(/T00:00:00\.000Z$/);
      expect(await a.gateway.userTotals("anna")).toEqual(totals);
      expect((await a.gateway.userTotals("bob")).month).toMatchObject({ usd: 0, tokens: 0 });
    },
  );

  it.skipIf(!backend.available)(
    "counts a project's tokens per UTC day, and a new day starts afresh",
    async () => {
      let now = Date.UTC(2026, 11, 7, 23, 59);
      const limits = limitSettings({ TALKIDE_LIMIT_PROJECT_DAY_TOKENS: 10 });
      const bench = await startBench({
        databaseUrl: await backend.newDatabase(),
        gateway: { limits, clock: () => now },
      });
      benches.push(bench);
      const credential = bench.gateway.issue({ projectKey: "project-t" });
      await send(bench.gateway.url, {
        path: "/v1/messages",
        headers: { ...HEADERS, "x-api-key": credential.token },
        body: messagesBody({ messages: [{ role: "user", text: "hello there" }] }),
      });
      await bench.gateway.turnUsage("none");
      await expect
        .poll(() => bench.gateway.checkLimits({ projectKey: "project-t", userKey: null }))
        .toMatchObject({ scope: "project", period: "day", measure: "tokens", cap: 10 });
      now += 2 * 60_000;
      expect(
        await bench.gateway.checkLimits({ projectKey: "project-t", userKey: null }),
      ).toBeNull();
    },
  );
});

describe("why the cache missed, across a restart", () => {
  let bench: Bench;
  let now = Date.UTC(2026, 11, 7, 10, 0);
  beforeAll(async () => {
    bench = await startBench({
      fake: { minimumCacheableTokens: 1, clock: () => now },
      gateway: {
        clock: () => now,
        nameMiss: (miss, changed) =>
          miss.reason === "messages_changed" && changed?.after.includes("# Tým") === true
            ? "the roster section changed"
            : miss.reason === "ttl_expired"
              ? `the cache expired after ${Math.round((miss.gapMs ?? 0) / 60_000)} min`
              : null,
      },
    });
  });
  afterAll(async () => {
    await bench.close();
  });

  it("tells new session, kept prefix, expiry and a change, from the stored previous prompt", async () => {
    const turn = async (turnId: string, messages: Array<{ role: string; text: string }>) => {
      const credential = bench.gateway.issue({ projectKey: "p" });
      credential.attach({ turnId, userKey: "u" });
      const answer = await send(bench.gateway.url, {
        path: "/v1/messages",
        headers: {
          ...HEADERS,
          "x-claude-code-session-id": "session-miss",
          "x-api-key": credential.token,
        },
        body: messagesBody({ messages }),
      });
      expect(answer.status).toBe(200);
      credential.revoke();
      return bench.gateway.turnUsage(turnId);
    };
    const first = [{ role: "user", text: "# Projekt\nPekárna\n# Tým\nAnna" }];
    expect((await turn("t1", first))?.miss).toMatchObject({ reason: "new_session" });
    const second = [...first, { role: "assistant", text: "Ahoj" }, { role: "user", text: "Dál" }];
    now += 60_000;
    expect((await turn("t2", second))?.miss).toMatchObject({
      reason: "prefix_kept",
      gapMs: 60_000,
      ttlMs: 3_600_000,
    });
    // The previous prompt is read from the database: a restarted gateway still compares.
    await bench.restart();
    now += 61 * 60_000;
    const expired = await turn("t3", [
      ...second,
      { role: "assistant", text: "Ok" },
      { role: "user", text: "A teď?" },
    ]);
    expect(expired?.miss).toMatchObject({ reason: "ttl_expired", gapMs: 61 * 60_000 });
    expect(expired?.phrases).toEqual(["the cache expired after 61 min"]);
    expect(expired?.missPhrase).toBe("the cache expired after 61 min");
    now += 60_000;
    const changed = await turn("t4", [
      { role: "user", text: "# Projekt\nPekárna\n# Tým\nAnna, Bob" },
    ]);
    expect(changed?.miss).toMatchObject({
      reason: "messages_changed",
      position: {
        section: "messages",
        index: 0,
        block: 0,
        offset: Buffer.byteLength("# Projekt\nPekárna\n# Tým\nAnna"),
      },
    });
    expect(changed?.phrases).toEqual(["the roster section changed"]);
  });
});
