import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { explainCacheMiss, firstChange, promptShapeOf, type PromptShape } from "./cache-miss.ts";

type Block = Record<string, unknown>;
interface Body {
  tools?: Block[];
  system?: string | Block[];
  messages: Array<{ role: string; content: string | Block[] }>;
}

const text = (t: string, cache?: "5m" | "1h"): Block => ({
  type: "text",
  text: t,
  ...(cache === undefined
    ? {}
    : { cache_control: cache === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" } }),
});

const BASE: Body = {
  tools: [
    { name: "Read", description: "Reads a file", input_schema: { type: "object" } },
    { name: "Bash", description: "Runs a command", input_schema: { type: "object" } },
  ],
  system: [
    text("x-anthropic-billing-header: cc_version=2.1.330.abc;"),
    text("You are Mara.", "1h"),
  ],
  messages: [
    {
      role: "user",
      content: [
        text("<system-reminder>\n# Projekt\nPekárna\n# Tým\nAnna\n</system-reminder>"),
        text("Ahoj", "1h"),
      ],
    },
  ],
};

function shape(body: Body): PromptShape {
  const s = promptShapeOf(body);
  if (s === null) throw new Error("not a prompt");
  return s;
}

const MINUTE = 60_000;

/** The item at `i`; a test's own mistake when there is none. */
function at<T>(items: readonly T[] | undefined, i: number): T {
  const item = items?.[i];
  if (item === undefined) throw new Error(`no item at ${i}`);
  return item;
}

const TOOLS = BASE.tools ?? [];
const FIRST_CONTENT = at(BASE.messages, 0).content as Block[];

function explain(
  previous: Body | null,
  next: Body,
  gapMs = MINUTE,
  readTokens: number | null = 100,
) {
  return explainCacheMiss({
    previous: previous === null ? null : { ...shape(previous), at: 0, promptTokens: 100 },
    next: shape(next),
    at: gapMs,
    readTokens,
  });
}

describe("why a request's cache missed", () => {
  it("is a new session when the session sent nothing before", () => {
    expect(explain(null, BASE)).toMatchObject({
      reason: "new_session",
      position: null,
      gapMs: null,
    });
  });

  it("keeps the prefix when the request only appends a reply and a message", () => {
    const next: Body = {
      ...BASE,
      messages: [
        ...BASE.messages,
        { role: "assistant", content: [text("Ahoj Anno")] },
        { role: "user", content: [text("Co dál?", "1h")] },
      ],
    };
    expect(explain(BASE, next)).toMatchObject({
      reason: "prefix_kept",
      position: null,
      gapMs: MINUTE,
    });
  });

  it("ignores where the cache_control markers sit", () => {
    const moved: Body = {
      ...BASE,
      messages: [
        {
          role: "user",
          content: [
            text("<system-reminder>\n# Projekt\nPekárna\n# Tým\nAnna\n</system-reminder>", "5m"),
            text("Ahoj"),
          ],
        },
      ],
    };
    expect(explain(BASE, moved).reason).toBe("prefix_kept");
  });

  it("keeps the prefix when an earlier message's text block comes back as a string (the CLI's next request)", () => {
    const sent: Body = {
      ...BASE,
      messages: [
        { role: "user", content: "Ahoj" },
        { role: "system", content: [text("Dnes je pondělí.", "1h")] },
      ],
    };
    const next: Body = {
      ...BASE,
      messages: [
        { role: "user", content: "Ahoj" },
        { role: "system", content: "Dnes je pondělí." },
        { role: "assistant", content: [text("Ahoj Anno")] },
        { role: "user", content: [text("Co dál?", "1h")] },
      ],
    };
    expect(explain(sent, next).reason).toBe("prefix_kept");
    const changed: Body = {
      ...next,
      messages: [
        { role: "user", content: "Ahoj" },
        { role: "system", content: "Dnes je úterý." },
      ],
    };
    expect(explain(sent, changed)).toMatchObject({
      reason: "messages_changed",
      position: { section: "messages", index: 1, block: 0, offset: Buffer.byteLength("Dnes je ") },
    });
  });

  it("names a changed tool by its position", () => {
    const next: Body = {
      ...BASE,
      tools: [at(TOOLS, 0), { ...at(TOOLS, 1), description: "Runs it" }],
    };
    const result = explain(BASE, next);
    expect(result).toMatchObject({
      reason: "tools_changed",
      position: { section: "tools", index: 1, block: null },
    });
    expect(result.changed?.before).toContain("Runs a command");
  });

  it("counts an added tool as a change of the tools, not an append", () => {
    const next: Body = { ...BASE, tools: [...TOOLS, { name: "Grep" }] };
    expect(explain(BASE, next)).toMatchObject({
      reason: "tools_changed",
      position: { index: 2, offset: 0 },
    });
  });

  it("names a changed system block by its index", () => {
    const next: Body = {
      ...BASE,
      system: [
        text("x-anthropic-billing-header: cc_version=2.1.330.def;"),
        text("You are Mara.", "1h"),
      ],
    };
    expect(explain(BASE, next)).toMatchObject({
      reason: "system_changed",
      position: {
        section: "system",
        index: 0,
        block: null,
        offset: "x-anthropic-billing-header: cc_version=2.1.330.".length,
      },
    });
  });

  it("names a changed message by message, block and byte offset (UTF-8)", () => {
    const next: Body = {
      ...BASE,
      messages: [
        {
          role: "user",
          content: [
            text("<system-reminder>\n# Projekt\nPekárna\n# Tým\nBob\n</system-reminder>"),
            text("Ahoj", "1h"),
          ],
        },
      ],
    };
    const before = "<system-reminder>\n# Projekt\nPekárna\n# Tým\n";
    const result = explain(BASE, next);
    expect(result).toMatchObject({
      reason: "messages_changed",
      position: { section: "messages", index: 0, block: 0, offset: Buffer.byteLength(before) },
    });
    expect(result.changed?.after).toContain("Bob");
  });

  it("counts a block added to an earlier message as a change there", () => {
    const previous: Body = {
      ...BASE,
      messages: [...BASE.messages, { role: "assistant", content: [text("Ahoj")] }],
    };
    const next: Body = {
      ...BASE,
      messages: [
        { role: "user", content: [...FIRST_CONTENT, text("navíc")] },
        at(previous.messages, 1),
      ],
    };
    expect(explain(previous, next)).toMatchObject({
      reason: "messages_changed",
      position: { index: 0, block: 2, offset: 0 },
    });
  });

  it("counts a dropped message as a change", () => {
    const previous: Body = {
      ...BASE,
      messages: [...BASE.messages, { role: "assistant", content: "Ahoj" }],
    };
    expect(explain(previous, BASE)).toMatchObject({
      reason: "messages_changed",
      position: { index: 1, block: 0 },
    });
  });

  it("is ttl_expired when only appended but the gap outlived the breakpoints and less was read", () => {
    expect(explain(BASE, BASE, 61 * MINUTE, 10)).toMatchObject({
      reason: "ttl_expired",
      ttlMs: 60 * MINUTE,
    });
    // Within the hour, or everything read: kept.
    expect(explain(BASE, BASE, 59 * MINUTE, 10).reason).toBe("prefix_kept");
    expect(explain(BASE, BASE, 61 * MINUTE, 100).reason).toBe("prefix_kept");
  });

  it("takes 5 minutes for breakpoints without a ttl", () => {
    const fiveMinutes: Body = {
      ...BASE,
      system: [text("a"), text("b", "5m")],
      messages: [{ role: "user", content: "hi" }],
    };
    expect(explain(fiveMinutes, fiveMinutes, 6 * MINUTE, 0)).toMatchObject({
      reason: "ttl_expired",
      ttlMs: 5 * MINUTE,
    });
    expect(explain(fiveMinutes, fiveMinutes, 4 * MINUTE, 0).reason).toBe("prefix_kept");
  });

  it("reads a string system prompt and string contents as the one text block each stands for", () => {
    const a = promptShapeOf({ system: "hi", messages: [{ role: "user", content: "x" }] });
    expect(a?.blocks.map((b) => [b.section, b.key])).toEqual([
      ["system", '{"type":"text","text":"hi"}'],
      ["messages", '{"type":"text","text":"x"}'],
    ]);
    // …the same as the text block it stands for, as the provider caches it.
    const b = promptShapeOf({
      system: [{ type: "text", text: "hi" }],
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "x", cache_control: { type: "ephemeral" } }],
        },
      ],
    });
    expect(b?.blocks.map((x) => x.key)).toEqual(a?.blocks.map((x) => x.key));
    expect(promptShapeOf({ model: "x" })).toBeNull();
    expect(promptShapeOf("nope")).toBeNull();
  });
});

// Properties over generated prompts: tools, system blocks and messages of text blocks.
const word = fc.string({ minLength: 0, maxLength: 12 });
const textBlock = word.map((t) => text(t));
const arbBody: fc.Arbitrary<Body> = fc.record({
  tools: fc.array(fc.record({ name: word, description: word }), { maxLength: 4 }),
  system: fc.array(textBlock, { minLength: 1, maxLength: 3 }),
  messages: fc.array(
    fc.record({
      role: fc.constantFrom("user", "assistant"),
      content: fc.array(textBlock, { minLength: 1, maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

/** Every (section, index, block) position of a body's text, with its text. */
function positions(
  body: Body,
): Array<{ section: "tools" | "system" | "messages"; index: number; block: number | null }> {
  return [
    ...(body.tools ?? []).map((_, i) => ({ section: "tools" as const, index: i, block: null })),
    ...(body.system as Block[]).map((_, i) => ({
      section: "system" as const,
      index: i,
      block: null,
    })),
    ...body.messages.flatMap((m, i) =>
      (m.content as Block[]).map((_, b) => ({ section: "messages" as const, index: i, block: b })),
    ),
  ];
}

describe("properties", () => {
  test.prop([arbBody])("an identical request keeps the prefix", (body) => {
    expect(explain(body, structuredClone(body)).reason).toBe("prefix_kept");
  });

  test.prop([
    arbBody,
    fc.array(
      fc.record({
        role: fc.constantFrom("user", "assistant"),
        content: fc.array(textBlock, { minLength: 1, maxLength: 3 }),
      }),
      { maxLength: 3 },
    ),
    fc.array(textBlock, { maxLength: 2 }),
  ])("appending messages, or blocks to the last message, keeps the prefix", (body, more, tail) => {
    const last = at(body.messages, body.messages.length - 1);
    const next: Body = {
      ...body,
      messages: [
        ...body.messages.slice(0, -1),
        { ...last, content: [...(last.content as Block[]), ...tail] },
        ...more,
      ],
    };
    expect(firstChange(shape(body), shape(next))).toBeNull();
    expect(explain(body, next).reason).toBe("prefix_kept");
  });

  test.prop([arbBody, fc.nat(), fc.nat(), fc.string({ minLength: 1, maxLength: 4 })])(
    "a change at any position is reported at exactly that position and byte",
    (body, pick, cut, insert) => {
      const all = positions(body);
      const where = at(all, pick % all.length);
      const next = structuredClone(body);
      let original: string;
      let changed: string;
      if (where.section === "tools") {
        const tool = at(next.tools, where.index);
        original = JSON.stringify(at(body.tools, where.index));
        tool.description = `${String(tool.description)}${insert}`;
        changed = JSON.stringify(tool);
      } else {
        const block =
          where.section === "system"
            ? at(next.system as Block[], where.index)
            : at(at(next.messages, where.index).content as Block[], where.block ?? 0);
        original = String(block.text);
        const i = cut % (original.length + 1);
        changed = `${original.slice(0, i)}${insert}${original.slice(i)}`;
        block.text = changed;
      }
      fc.pre(changed !== original);
      let offset = 0;
      const a = Buffer.from(original);
      const b = Buffer.from(changed);
      while (offset < Math.min(a.length, b.length) && a[offset] === b[offset]) offset += 1;
      const result = explain(body, next);
      expect(result.reason).toBe(`${where.section}_changed`);
      expect(result.position).toEqual({ ...where, offset });
    },
  );
});
