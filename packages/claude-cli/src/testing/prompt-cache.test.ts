import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  billedInputTokens,
  estimateBlockTokens,
  minimumCacheableTokens,
  PromptCache,
  PromptCacheRequestError,
  type PromptCacheLedgerEntry,
} from "./prompt-cache.ts";

const MODEL = "claude-sonnet-4-5-20250929";
const EPHEMERAL = { type: "ephemeral" } as const;

/** A text of about `tokens` estimated tokens (3.6 ASCII bytes each, rounded up). */
function textOf(tokens: number, seed = "x"): string {
  return seed.repeat(Math.floor(tokens * 3.6));
}

interface Shape {
  tools: string[];
  system: string[];
  messages: string[];
  /** Breakpoint on the last tool, the last system block, the last message block. */
  marks?: { tools?: boolean; system?: boolean; messages?: boolean; ttl?: "1h" };
}

function request(shape: Shape, model = MODEL): Record<string, unknown> {
  const control = shape.marks?.ttl ? { ...EPHEMERAL, ttl: shape.marks.ttl } : EPHEMERAL;
  const mark = <T extends object>(items: T[], on: boolean | undefined): T[] =>
    items.map((item, i) =>
      on === true && i === items.length - 1 ? { ...item, cache_control: control } : item,
    );
  return {
    model,
    tools: mark(
      shape.tools.map((description, i) => ({ name: `tool${i}`, description, input_schema: {} })),
      shape.marks?.tools,
    ),
    system: mark(
      shape.system.map((text) => ({ type: "text", text })),
      shape.marks?.system,
    ),
    messages: [
      {
        role: "user",
        content: mark(
          shape.messages.map((text) => ({ type: "text", text })),
          shape.marks?.messages ?? true,
        ),
      },
    ],
  };
}

function clock(start = 0): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

const sum = (e: PromptCacheLedgerEntry): number => e.uncached + e.write5m + e.write1h + e.read;

const shapeArb: fc.Arbitrary<Shape> = fc.record({
  tools: fc.array(fc.string({ maxLength: 3000 }), { maxLength: 4 }),
  system: fc.array(fc.string({ maxLength: 6000 }), { minLength: 1, maxLength: 3 }),
  messages: fc.array(fc.string({ maxLength: 6000 }), { minLength: 1, maxLength: 4 }),
  marks: fc.record({ tools: fc.boolean(), system: fc.boolean(), messages: fc.boolean() }),
});

describe("PromptCache", () => {
  it("counts UTF-8 bytes / 3.6 per block, rounded up", () => {
    expect(estimateBlockTokens("")).toBe(0);
    expect(estimateBlockTokens("abcd")).toBe(2);
    expect(estimateBlockTokens("é".repeat(9))).toBe(5); // 18 bytes
    const cache = new PromptCache();
    // Each text block by itself: 1 + 1 (not ceil(8 / 3.6) = 3 for the two together).
    expect(
      cache.countTokens({ system: "abcd", messages: [{ role: "user", content: "abcd" }] }),
    ).toBe(4);
  });

  it("knows the documented minimum cacheable lengths", () => {
    expect(minimumCacheableTokens("claude-sonnet-4-5-20250929")).toBe(1024);
    expect(minimumCacheableTokens("claude-opus-4-1-20250805")).toBe(1024);
    expect(minimumCacheableTokens("claude-opus-4-5-20251101")).toBe(4096);
    expect(minimumCacheableTokens("claude-haiku-4-5-20251001")).toBe(4096);
    expect(minimumCacheableTokens("claude-3-5-haiku-20241022")).toBe(2048);
    expect(minimumCacheableTokens("claude-opus-5-5")).toBe(1024);
  });

  it("writes the whole prefix at the breakpoint, then reads it and writes only what is new", () => {
    const cache = new PromptCache({ clock: clock().now });
    const first = cache.account(
      0,
      request({ tools: [textOf(800)], system: [textOf(800)], messages: ["Hi"] }),
    );
    expect(first).toMatchObject({ read: 0, uncached: 0, write1h: 0 });
    expect(first.write5m).toBe(first.promptTokens);
    const second = cache.account(
      1,
      request({ tools: [textOf(800)], system: [textOf(800)], messages: ["Hi", textOf(100, "y")] }),
    );
    expect(second.read).toBe(first.promptTokens);
    expect(second.write5m).toBe(estimateBlockTokens(textOf(100, "y")));
    expect(second.idealNew).toBe(second.write5m);
  });

  it("keeps tokens after the last breakpoint uncached", () => {
    const cache = new PromptCache();
    const entry = cache.account(
      0,
      request({
        tools: [],
        system: [textOf(1200)],
        messages: ["question"],
        marks: { system: true, messages: false },
      }),
    );
    expect(entry.write5m).toBe(estimateBlockTokens(textOf(1200)));
    expect(entry.uncached).toBe(estimateBlockTokens("question"));
  });

  it("reads within the TTL, refreshes on a read, and forgets after it", () => {
    const time = clock();
    const cache = new PromptCache({ clock: time.now });
    const shape = { tools: [], system: [textOf(1500)], messages: ["Hi"] };
    cache.account(0, request(shape));
    time.advance(4 * 60_000);
    expect(cache.account(1, request(shape)).read).toBeGreaterThan(0);
    time.advance(4 * 60_000); // 8 min after the write, 4 after the refreshing read
    expect(cache.account(2, request(shape)).read).toBeGreaterThan(0);
    time.advance(5 * 60_000);
    const expired = cache.account(3, request(shape));
    expect(expired.read).toBe(0);
    expect(expired.write5m).toBe(expired.promptTokens);
  });

  it("keeps a 1 h entry for an hour", () => {
    const time = clock();
    const cache = new PromptCache({ clock: time.now });
    const shape = {
      tools: [],
      system: [textOf(1500)],
      messages: ["Hi"],
      marks: { ttl: "1h" as const },
    };
    const first = cache.account(0, request(shape));
    expect(first).toMatchObject({ write5m: 0, write1h: first.promptTokens });
    time.advance(59 * 60_000);
    expect(cache.account(1, request(shape)).read).toBe(first.promptTokens);
    time.advance(61 * 60_000);
    expect(cache.account(2, request(shape)).read).toBe(0);
  });

  it("finds an earlier entry within 20 blocks before a breakpoint, not beyond", () => {
    const cache = new PromptCache();
    const base = [textOf(1500)];
    cache.account(0, request({ tools: [], system: [], messages: base }));
    const near = cache.account(
      1,
      request({
        tools: [],
        system: [],
        messages: [...base, ...Array.from({ length: 19 }, () => "a")],
      }),
    );
    expect(near.read).toBe(estimateBlockTokens(textOf(1500)));
    const cache2 = new PromptCache();
    cache2.account(0, request({ tools: [], system: [], messages: base }));
    const far = cache2.account(
      1,
      request({
        tools: [],
        system: [],
        messages: [...base, ...Array.from({ length: 20 }, () => "a")],
      }),
    );
    expect(far.read).toBe(0);
  });

  it("refuses more than four breakpoints and a 1 h breakpoint after a 5 m one, accounting nothing", () => {
    const cache = new PromptCache();
    const five = {
      model: MODEL,
      messages: [
        {
          role: "user",
          content: Array.from({ length: 5 }, () => ({
            type: "text",
            text: "a",
            cache_control: EPHEMERAL,
          })),
        },
      ],
    };
    expect(() => cache.account(0, five)).toThrow(PromptCacheRequestError);
    const order = {
      model: MODEL,
      system: [
        { type: "text", text: "a", cache_control: EPHEMERAL },
        { type: "text", text: "b", cache_control: { type: "ephemeral", ttl: "1h" } },
      ],
      messages: [{ role: "user", content: "Hi" }],
    };
    expect(() => cache.account(1, order)).toThrow(/ttl="1h"/);
    expect(cache.ledger()).toEqual([]);
  });

  test.prop([shapeArb])("the figures add up to the prompt and never exceed it", (shape) => {
    const cache = new PromptCache();
    const entry = cache.account(0, request(shape));
    expect(sum(entry)).toBe(entry.promptTokens);
    expect(
      Math.min(entry.uncached, entry.write5m, entry.write1h, entry.read),
    ).toBeGreaterThanOrEqual(0);
    expect(entry.idealNew).toBe(entry.promptTokens);
    expect(billedInputTokens(entry)).toBeGreaterThanOrEqual(entry.promptTokens);
  });

  test.prop([shapeArb, fc.integer({ min: 0, max: 5 * 60_000 - 1 })])(
    "a request repeated within the TTL reads everything up to its last written breakpoint",
    (shape, gap) => {
      const time = clock();
      const cache = new PromptCache({ clock: time.now });
      const first = cache.account(0, request(shape));
      time.advance(gap);
      const again = cache.account(1, request(shape));
      expect(again.read).toBe(first.write5m);
      expect(again.write5m + again.write1h).toBe(0);
      expect(again.uncached).toBe(first.uncached);
      expect(again.idealNew).toBe(0);
    },
  );

  test.prop([shapeArb])("nothing is written for a prefix below the minimum", (shape) => {
    const cache = new PromptCache();
    const entry = cache.account(0, request(shape));
    for (const breakpoint of entry.breakpoints) {
      expect(breakpoint.outcome === "written").toBe(breakpoint.prefixTokens >= 1024);
    }
    if (entry.promptTokens < 1024) expect(entry.write5m).toBe(0);
  });

  test.prop([
    fc.string({ minLength: 4000, maxLength: 6000 }),
    fc.string({ minLength: 4000, maxLength: 6000 }),
  ])("the order tools → system → messages is part of the key", (a, b) => {
    fc.pre(a !== b);
    const cache = new PromptCache();
    cache.account(0, request({ tools: [a], system: [b], messages: ["Hi"] }));
    // The same texts, swapped between tools and system: nothing of the prefix is the same.
    const swapped = cache.account(1, request({ tools: [b], system: [a], messages: ["Hi"] }));
    expect(swapped.read).toBe(0);
    expect(swapped.idealNew).toBe(swapped.promptTokens);
    // Text moved from a system block into the messages is another prompt too.
    const moved = cache.account(2, {
      model: MODEL,
      tools: [{ name: "tool0", description: a, input_schema: {} }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: b },
            { type: "text", text: "Hi", cache_control: EPHEMERAL },
          ],
        },
      ],
    });
    expect(moved.read).toBe(0);
  });

  test.prop([
    fc.string({ minLength: 4000, maxLength: 6000 }),
    fc.string({ minLength: 1, maxLength: 20 }),
  ])(
    "a change anywhere before a breakpoint loses the entry; one after it does not",
    (big, change) => {
      const cache = new PromptCache();
      const shape = { tools: [big], system: [big], messages: ["Hi"], marks: { system: true } };
      const first = cache.account(0, request(shape));
      const systemEnd = first.breakpoints[0]?.prefixTokens;
      const after = cache.account(1, request({ ...shape, messages: [`Hi${change}`] }));
      expect(after.read).toBe(systemEnd);
      const before = cache.account(2, request({ ...shape, tools: [`${big}${change}`] }));
      expect(before.read).toBe(0);
    },
  );

  it("keeps models apart", () => {
    const cache = new PromptCache();
    const shape = { tools: [], system: [textOf(1500)], messages: ["Hi"] };
    cache.account(0, request(shape, "claude-sonnet-4-5-20250929"));
    expect(cache.account(1, request(shape, "claude-sonnet-4-20250514")).read).toBe(0);
  });
});
