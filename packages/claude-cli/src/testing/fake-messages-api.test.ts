import { afterEach, describe, expect, it } from "vitest";
import { startFakeMessagesApi, type FakeMessagesApi } from "./fake-messages-api.ts";

let api: FakeMessagesApi | null = null;
afterEach(async () => {
  await api?.close();
  api = null;
});

async function start(
  options?: Parameters<typeof startFakeMessagesApi>[0],
): Promise<FakeMessagesApi> {
  api = await startFakeMessagesApi(options);
  return api;
}

function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": "sk-secret",
      "anthropic-version": "2023-06-01",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

interface SseFrame {
  event: string;
  data: Record<string, unknown>;
}

/** Server-sent events framing: frames end with a blank line; `event:` and `data:` fields. */
function parseSse(text: string): SseFrame[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      const fields = Object.fromEntries(
        frame.split("\n").map((line) => {
          const colon = line.indexOf(": ");
          return [line.slice(0, colon), line.slice(colon + 2)];
        }),
      );
      return {
        event: fields["event"] as string,
        data: JSON.parse(fields["data"] as string) as Record<string, unknown>,
      };
    });
}

const REQUEST = {
  model: "claude-sonnet-4-5-20250929",
  max_tokens: 1024,
  system: [{ type: "text", text: "You are a test." }],
  messages: [{ role: "user", content: "Hi" }],
};

describe("startFakeMessagesApi", () => {
  it("listens on 127.0.0.1 with an ephemeral port", async () => {
    const { url } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("streams a text reply as the real event sequence", async () => {
    const { url } = await start({ reply: { text: "Hello there" } });
    const response = await post(url, "/v1/messages", { ...REQUEST, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const frames = parseSse(await response.text());
    expect(frames.map((f) => f.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    for (const frame of frames) expect(frame.data["type"]).toBe(frame.event);
    const opening = frames[0]?.data["message"] as Record<string, unknown>;
    expect(opening).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      stop_sequence: null,
    });
    expect(frames[2]?.data).toEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    });
    const text = frames
      .filter((f) => f.event === "content_block_delta")
      .map((f) => (f.data["delta"] as { type: string; text: string }).text)
      .join("");
    expect(text).toBe("Hello there");
    expect(frames[6]?.data).toMatchObject({
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: expect.any(Number) as number },
    });
  });

  it("streams a tool_use block as input_json_delta pieces and stops for tool_use", async () => {
    const { url } = await start({
      reply: {
        content: [
          { type: "text", text: "Running it." },
          {
            type: "tool_use",
            id: "toolu_01",
            name: "Bash",
            input: { command: "ticlawk reply ok" },
          },
        ],
      },
    });
    const frames = parseSse(
      await (await post(url, "/v1/messages", { ...REQUEST, stream: true })).text(),
    );
    const toolStart = frames.find(
      (f) => f.event === "content_block_start" && f.data["index"] === 1,
    );
    expect(toolStart?.data["content_block"]).toEqual({
      type: "tool_use",
      id: "toolu_01",
      name: "Bash",
      input: {},
    });
    const json = frames
      .filter((f) => f.event === "content_block_delta" && f.data["index"] === 1)
      .map((f) => (f.data["delta"] as { partial_json: string }).partial_json)
      .join("");
    expect(JSON.parse(json)).toEqual({ command: "ticlawk reply ok" });
    const delta = frames.find((f) => f.event === "message_delta");
    expect((delta?.data["delta"] as { stop_reason: string }).stop_reason).toBe("tool_use");
  });

  it("answers a non-streaming request with one message object", async () => {
    const { url } = await start({ reply: { text: "Plain" } });
    const response = await post(url, "/v1/messages", REQUEST);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "Plain" }],
      stop_reason: "end_turn",
      usage: { input_tokens: expect.any(Number) as number },
    });
  });

  it("counts tokens, answers API errors in the API's shape, 404s anything else", async () => {
    const fake = await start();
    const { url } = fake;
    const counted = await post(url, "/v1/messages/count_tokens", REQUEST);
    expect(await counted.json()).toEqual({ input_tokens: expect.any(Number) as number });

    fake.setReply({ error: { status: 529, type: "overloaded_error", message: "Overloaded" } });
    const overloaded = await post(url, "/v1/messages", REQUEST);
    expect(overloaded.status).toBe(529);
    expect(await overloaded.json()).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });

    const missing = await fetch(`${url}/v1/models`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      type: "error",
      error: { type: "not_found_error" },
    });
  });

  it("records every request with parsed body, byte count and credentials redacted", async () => {
    const seen: number[] = [];
    const fake = await start({
      reply: (request) => {
        seen.push(request.index);
        return { text: `reply ${request.index}` };
      },
    });
    await post(fake.url, "/v1/messages?beta=true", REQUEST, { authorization: "Bearer t0k3n" });
    await fetch(`${fake.url}/health`);
    expect(seen).toEqual([0]);
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests;
    expect(first).toMatchObject({
      index: 0,
      method: "POST",
      path: "/v1/messages",
      query: "beta=true",
    });
    expect(first?.body).toEqual(REQUEST);
    expect(first?.bodyBytes).toBe(Buffer.byteLength(JSON.stringify(REQUEST)));
    expect(first?.headers["x-api-key"]).toBe("[redacted]");
    expect(first?.headers["authorization"]).toBe("[redacted]");
    expect(first?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(JSON.stringify(fake.requests)).not.toContain("sk-secret");
    expect(JSON.stringify(fake.requests)).not.toContain("t0k3n");
    expect(second).toMatchObject({ method: "GET", path: "/health", body: null, bodyBytes: 0 });
    expect(fake.messageRequests()).toEqual([first]);
  });

  it("reports the prompt cache's figures in message_start and message_delta, shared across requests", async () => {
    let now = 0;
    const fake = await start({ clock: () => now });
    const cached = {
      ...REQUEST,
      stream: true,
      system: [{ type: "text", text: "x".repeat(5000), cache_control: { type: "ephemeral" } }],
    };
    const usageOf = async (body: unknown) => {
      const frames = parseSse(await (await post(fake.url, "/v1/messages", body)).text());
      const opening = frames[0]?.data["message"] as { usage: Record<string, unknown> };
      const delta = frames.find((f) => f.event === "message_delta")?.data["usage"];
      return { start: opening.usage, delta: delta as Record<string, unknown> };
    };
    const first = await usageOf(cached);
    expect(first.start).toMatchObject({
      input_tokens: 1, // "Hi", after the breakpoint
      cache_creation_input_tokens: 1389, // ceil(5000 / 3.6)
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 1389, ephemeral_1h_input_tokens: 0 },
    });
    expect(first.delta).toMatchObject({
      input_tokens: 1,
      cache_creation_input_tokens: 1389,
      cache_read_input_tokens: 0,
    });
    now += 5 * 60_000 - 1;
    const second = await usageOf(cached);
    expect(second.start).toMatchObject({
      cache_read_input_tokens: 1389,
      cache_creation_input_tokens: 0,
    });
    now += 5 * 60_000;
    const third = await usageOf(cached);
    expect(third.start).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 1389,
    });
    expect(
      fake.cacheLedger().map((e) => [e.requestIndex, e.at, e.read, e.write5m, e.uncached]),
    ).toEqual([
      [0, 0, 0, 1389, 1],
      [1, 299_999, 1389, 0, 1],
      [2, 599_999, 0, 1389, 1],
    ]);
  });

  it("refuses five breakpoints as the API does and leaves them out of the ledger", async () => {
    const fake = await start();
    const text = { type: "text", text: "a", cache_control: { type: "ephemeral" } };
    const response = await post(fake.url, "/v1/messages", {
      ...REQUEST,
      messages: [{ role: "user", content: [text, text, text, text, text] }],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    expect(fake.cacheLedger()).toEqual([]);
  });
});
