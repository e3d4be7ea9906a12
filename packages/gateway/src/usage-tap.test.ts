import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { gzipSync } from "node:zlib";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { UsageTap } from "./usage-tap.ts";
import { foldUsage, NO_USAGE } from "./usage.ts";

const START_USAGE = {
  input_tokens: 12,
  cache_creation_input_tokens: 300,
  cache_read_input_tokens: 4000,
  cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
  output_tokens: 1,
};
const sse = (events: Array<[string, unknown]>, eol = "\n"): string =>
  events
    .map(([name, data]) => `event: ${name}${eol}data: ${JSON.stringify(data)}${eol}${eol}`)
    .join("");
const STREAM = sse([
  [
    "message_start",
    { type: "message_start", message: { model: "claude-opus-5-5", usage: START_USAGE } },
  ],
  ["ping", { type: "ping" }],
  [
    "content_block_delta",
    { type: "content_block_delta", delta: { type: "text_delta", text: "Dobrý den — ž" } },
  ],
  [
    "message_delta",
    {
      type: "message_delta",
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: 4000,
        output_tokens: 57,
      },
    },
  ],
  ["message_stop", { type: "message_stop" }],
]);

async function tapped(chunks: Buffer[], headers: Record<string, string>) {
  const tap = new UsageTap(headers);
  const out = buffer(Readable.from(chunks).pipe(tap));
  return { bytes: await out, result: await tap.result };
}

function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    parts.push(bytes.subarray(from, p));
    from = p;
  }
  parts.push(bytes.subarray(from));
  return parts.filter((p) => p.length > 0);
}

describe("the usage tap", () => {
  it("reads a stream's usage: message_start's split, message_delta's output", async () => {
    const { result } = await tapped([Buffer.from(STREAM)], {
      "content-type": "text/event-stream; charset=utf-8",
    });
    expect(result).toEqual({
      model: "claude-opus-5-5",
      complete: true,
      usage: {
        inputTokens: 12,
        cacheWrite5mTokens: 100,
        cacheWrite1hTokens: 200,
        cacheReadTokens: 4000,
        outputTokens: 57,
        webSearchRequests: 0,
        inferenceGeo: null,
      },
    });
  });

  test.prop([fc.array(fc.nat(), { maxLength: 20 }), fc.boolean()])(
    "passes every byte unchanged however the stream is cut (CRLF or LF), and reads the same usage",
    async (cuts, crlf) => {
      const text = crlf ? STREAM.replaceAll("\n", "\r\n") : STREAM;
      const bytes = Buffer.from(text);
      const { bytes: out, result } = await tapped(split(bytes, cuts), {
        "content-type": "text/event-stream",
      });
      expect(out.equals(bytes)).toBe(true);
      expect(result.usage?.outputTokens).toBe(57);
      expect(result.usage?.cacheWrite1hTokens).toBe(200);
    },
  );

  it("reads a JSON body's usage, and a gzip-compressed one while passing the compressed bytes on", async () => {
    const body = JSON.stringify({
      type: "message",
      model: "m",
      usage: { ...START_USAGE, output_tokens: 9 },
    });
    const plain = await tapped([Buffer.from(body)], { "content-type": "application/json" });
    expect(plain.result.usage?.outputTokens).toBe(9);
    const zipped = gzipSync(body);
    const compressed = await tapped(split(zipped, [7, 19]), {
      "content-type": "application/json",
      "content-encoding": "gzip",
    });
    expect(compressed.bytes.equals(zipped)).toBe(true);
    expect(compressed.result.usage?.cacheWrite5mTokens).toBe(100);
  });

  it("has no usage for an error body or a cut stream", async () => {
    const error = await tapped(
      [Buffer.from('{"type":"error","error":{"type":"overloaded_error"}}')],
      {
        "content-type": "application/json",
      },
    );
    expect(error.result).toEqual({ usage: null, model: null, complete: false });
    const cut = await tapped([Buffer.from(STREAM.slice(0, 40))], {
      "content-type": "text/event-stream",
    });
    expect(cut.result.usage).toBeNull();
  });
});

describe("folding usage", () => {
  it("counts cache_creation_input_tokens without a split as 5-minute writes", () => {
    expect(
      foldUsage(NO_USAGE, { input_tokens: 1, cache_creation_input_tokens: 50, output_tokens: 2 }),
    ).toMatchObject({
      cacheWrite5mTokens: 50,
      cacheWrite1hTokens: 0,
    });
  });

  it("puts what the split does not account for under 5 minutes", () => {
    expect(
      foldUsage(NO_USAGE, {
        cache_creation_input_tokens: 50,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 30 },
      }),
    ).toMatchObject({ cacheWrite5mTokens: 20, cacheWrite1hTokens: 30 });
  });

  it("reads web searches and the inference region", () => {
    expect(
      foldUsage(NO_USAGE, { server_tool_use: { web_search_requests: 3 }, inference_geo: "us" }),
    ).toMatchObject({ webSearchRequests: 3, inferenceGeo: "us" });
  });
});
