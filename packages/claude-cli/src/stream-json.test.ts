import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  apiRetryOf,
  LineSplitter,
  parseStreamLine,
  tokenUsageOf,
  type ClaudeResultEvent,
} from "./stream-json.ts";

/** Cuts `text` at the given (sorted, deduplicated) offsets. */
function cut(text: string, offsets: number[]): string[] {
  const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(text.slice(from, point));
    from = point;
  }
  pieces.push(text.slice(from));
  return pieces;
}

describe("LineSplitter", () => {
  it("releases a line only when its newline arrived", () => {
    const splitter = new LineSplitter();
    expect(splitter.push('{"type":"sys')).toEqual([]);
    expect(splitter.push('tem"}\n{"type":"res')).toEqual(['{"type":"system"}']);
    expect(splitter.push('ult"}\r')).toEqual([]);
    expect(splitter.push("\n")).toEqual(['{"type":"result"}']);
    expect(splitter.end()).toEqual([]);
  });

  it("releases a last line without newline at the end", () => {
    const splitter = new LineSplitter();
    expect(splitter.push('{"type":"x"}')).toEqual([]);
    expect(splitter.end()).toEqual(['{"type":"x"}']);
  });

  const event = fc.record({
    type: fc.constantFrom("system", "assistant", "user", "result"),
    text: fc.string({ unit: "grapheme" }),
  });

  test.prop(
    {
      events: fc.array(event, { maxLength: 8 }),
      offsets: fc.array(fc.nat(), { maxLength: 12 }),
      crlf: fc.boolean(),
    },
    { numRuns: 1000 },
  )("any chunking of the stream yields exactly the events written", ({ events, offsets, crlf }) => {
    const newline = crlf ? "\r\n" : "\n";
    const stream = events.map((e) => JSON.stringify(e) + newline).join("");
    const splitter = new LineSplitter();
    const lines = cut(stream, offsets).flatMap((piece) => splitter.push(piece));
    lines.push(...splitter.end());
    const parsed = lines.map(parseStreamLine).flatMap((p) => (p.kind === "event" ? [p.event] : []));
    expect(parsed).toEqual(events);
    expect(lines.every((line) => parseStreamLine(line).kind === "event")).toBe(true);
  });
});

describe("parseStreamLine", () => {
  it.each([
    ["", "blank"],
    ["   ", "blank"],
    ['{"type":"result","is_error":false}', "event"],
    ["not json", "invalid"],
    ["[1,2]", "invalid"],
    ['"text"', "invalid"],
    ["null", "invalid"],
    ['{"subtype":"init"}', "invalid"],
    ['{"type":7}', "invalid"],
  ])("%j is %s", (line, kind) => {
    expect(parseStreamLine(line).kind).toBe(kind);
  });
});

describe("apiRetryOf", () => {
  it("reads the CLI's api_retry event", () => {
    expect(
      apiRetryOf({
        type: "system",
        subtype: "api_retry",
        attempt: 1,
        max_retries: 10,
        retry_delay_ms: 601,
        error_status: 529,
        error: "overloaded",
        session_id: "s",
      }),
    ).toEqual({ attempt: 1, maxRetries: 10, delayMs: 601, status: 529, error: "overloaded" });
  });

  it("keeps no free text and no odd numbers, and ignores other events", () => {
    expect(
      apiRetryOf({
        type: "system",
        subtype: "api_retry",
        attempt: 2,
        max_retries: -1,
        retry_delay_ms: 1.5,
        error: "Secret prompt text: hello",
      }),
    ).toEqual({ attempt: 2, maxRetries: null, delayMs: null, status: null, error: null });
    expect(apiRetryOf({ type: "system", subtype: "api_retry", attempt: "1" })).toBeNull();
    expect(apiRetryOf({ type: "system", subtype: "init" })).toBeNull();
  });
});

describe("tokenUsageOf", () => {
  const result = (usage: unknown): ClaudeResultEvent => ({ type: "result", usage });

  it("reads the four counts of the result event's usage", () => {
    expect(
      tokenUsageOf(
        result({
          input_tokens: 12,
          cache_creation_input_tokens: 3456,
          cache_read_input_tokens: 12345,
          output_tokens: 89,
          service_tier: "standard",
        }),
      ),
    ).toEqual({
      inputTokens: 12,
      cacheCreationInputTokens: 3456,
      cacheReadInputTokens: 12345,
      outputTokens: 89,
    });
  });

  it("counts absent cache fields as 0, and is null for anything that is not counts", () => {
    expect(tokenUsageOf(result({ input_tokens: 1, output_tokens: 2 }))).toEqual({
      inputTokens: 1,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
      outputTokens: 2,
    });
    expect(tokenUsageOf(result(undefined))).toBeNull();
    expect(tokenUsageOf(result({ output_tokens: 2 }))).toBeNull();
    expect(tokenUsageOf(result({ input_tokens: -1, output_tokens: 2 }))).toBeNull();
    expect(
      tokenUsageOf(result({ input_tokens: 1, output_tokens: 2, cache_read_input_tokens: "9" })),
    ).toBeNull();
  });
});
