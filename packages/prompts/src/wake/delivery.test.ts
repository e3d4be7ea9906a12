import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { hostileDelivery } from "../test-support/arbitraries.ts";
import { DeliveryError, deliverySchema, parseDelivery } from "./delivery.ts";

const base = {
  id: "m-1",
  seq: 1,
  created_at: "2026-05-02T14:32:11Z",
  conversation_type: "group",
  conversation_id: "c-1",
  sender_type: "human",
};

function errorOf(input: unknown): { code: string; path: string; message: string } {
  try {
    parseDelivery(input);
  } catch (error) {
    expect(error).toBeInstanceOf(DeliveryError);
    const { code, path, message } = error as DeliveryError;
    return { code, path, message };
  }
  throw new Error("expected a DeliveryError");
}

describe("parseDelivery", () => {
  test("normalizes: message id resolved, optional fields null, text empty, reactions []", () => {
    const delivery = parseDelivery({ ...base, id: undefined, message_id: "m-1" });
    expect(delivery.id).toBe("m-1");
    expect(delivery.seq).toBe("1");
    expect(delivery.text).toBe("");
    expect(delivery.reason).toBeNull();
    expect(delivery.reactions_summary).toEqual([]);
    expect(delivery.message_metadata).toBeNull();
    expect("message_id" in delivery).toBe(false);
  });

  test("unknown fields are dropped at every level", () => {
    const delivery = parseDelivery({
      ...base,
      extra: "x",
      message_metadata: { quote: { kind: "message", ref: "m-0", more: 1 }, other: 2 },
    });
    expect(Object.keys(delivery)).not.toContain("extra");
    expect(delivery.message_metadata).toEqual({
      quote: { kind: "message", ref: "m-0", snippet: null },
    });
  });

  test("the result is deeply frozen", () => {
    const delivery = parseDelivery({ ...base, reactions_summary: ["👍 1"] });
    expect(Object.isFrozen(delivery)).toBe(true);
    expect(Object.isFrozen(delivery.reactions_summary)).toBe(true);
  });

  test("strings are NFC", () => {
    const delivery = parseDelivery({ ...base, sender_display_name: "Zoe\u0308", text: "e\u0301" });
    expect(delivery.sender_display_name).toBe("Zoë");
    expect(delivery.text).toBe("é");
  });

  test("thread_follow and reply_follow are both accepted; an empty reason is none", () => {
    expect(parseDelivery({ ...base, reason: "thread_follow" }).reason).toBe("thread_follow");
    expect(parseDelivery({ ...base, reason: "" }).reason).toBeNull();
  });

  test.each([
    [{ ...base, created_at: undefined }, "missing_field", "created_at"],
    [{ ...base, created_at: null }, "invalid_field", "created_at"],
    [{ ...base, created_at: "2026-05-02T14:32:60Z" }, "invalid_field", "created_at"],
    [{ ...base, created_at: "2024-02-29T00:00:00Z" }, null, null],
    [{ ...base, created_at: "2023-02-29T00:00:00Z" }, "invalid_field", "created_at"],
    [{ ...base, created_at: "2026-05-02t14:32:11z" }, "invalid_field", "created_at"],
    [{ ...base, conversation_id: undefined }, "missing_field", "conversation_id"],
    [{ ...base, conversation_id: "c 1" }, "invalid_field", "conversation_id"],
    [{ ...base, id: "x".repeat(65) }, "invalid_field", "id"],
    [{ ...base, id: "x".repeat(64) }, null, null],
    [{ ...base, id: undefined }, "missing_field", "id"],
    [{ ...base, message_id: "m-2" }, "conflicting_field", "message_id"],
    ["text", "invalid_field", ""],
    [null, "invalid_field", ""],
  ])("%j → %s at %s", (input, code, path) => {
    if (code === null) {
      expect(() => parseDelivery(input)).not.toThrow();
      return;
    }
    expect(errorOf(input)).toMatchObject({ code, path });
  });

  test.each([
    ["seq beyond 2^53", { seq: 2 ** 53 }, { seq: null }],
    ["seq blank", { seq: "" }, { seq: null }],
    ["seq absent", { seq: undefined }, { seq: null }],
    ["sender agent id blank", { sender_agent_id: "" }, { sender_agent_id: null }],
    ["sender type unknown", { sender_type: "bot" }, { sender_type: "human" }],
    ["conversation type absent", { conversation_type: undefined }, { conversation_type: "dm" }],
    ["reason unknown", { reason: "poke" }, { reason: null }],
    ["metadata not an object", { message_metadata: "quote" }, { message_metadata: null }],
    [
      "quote ref not a string",
      { message_metadata: { quote: { kind: "message", ref: 5 } } },
      { message_metadata: { quote: null } },
    ],
    [
      "quote of an unknown kind kept",
      { message_metadata: { quote: { kind: "pr", ref: "pr-1" } } },
      { message_metadata: { quote: { kind: "pr", ref: "pr-1", snippet: null } } },
    ],
    [
      "metadata read without message_metadata",
      { metadata: { quote: { kind: "message", ref: "m-0" } } },
      { message_metadata: { quote: { kind: "message", ref: "m-0", snippet: null } } },
    ],
    [
      "conversation_display_name read without conversation_name",
      { conversation_display_name: "general" },
      { conversation_name: "general" },
    ],
    ["assignee type without its id", { task_assignee_type: "agent" }, { task_assignee_type: null }],
    [
      "thread without root",
      { conversation_type: "thread" },
      { conversation_type: "thread", thread_root_message_id: null },
    ],
    [
      "reactions with a bracket",
      { reactions_summary: ["a", "［b］", 3, " "] },
      { reactions_summary: ["a"] },
    ],
    ["reactions not an array", { reactions_summary: "a" }, { reactions_summary: [] }],
    ["unpaired surrogate", { text: "a\ud800" }, { text: "a\ufffd" }],
    ["text not a string", { text: 5 }, { text: "" }],
    ["task status unknown", { task_number: 3, task_status: "blocked" }, { task_status: null }],
  ])("degrades, never drops: %s", (_, change, expected) => {
    expect(parseDelivery({ ...base, ...change })).toMatchObject(expected);
  });

  test("the first refusal in field order is reported, the same every time", () => {
    const input = { ...base, id: undefined, created_at: "x", conversation_id: "c 1" };
    expect(errorOf(input)).toMatchObject({ code: "invalid_field", path: "created_at" });
    expect(errorOf(structuredClone(input))).toMatchObject({ path: "created_at" });
  });

  test.prop(
    [
      fc.constantFrom("id", "message_id", "conversation_id", "created_at"),
      fc.string({ minLength: 1 }),
    ],
    { numRuns: 1000 },
  )("an error message never repeats the offending value", (field, junk) => {
    const value = `SECRET ${junk} VALUE`;
    const { message } = errorOf({ ...base, [field]: value });
    expect(message).not.toContain(value);
    expect(message).not.toContain("SECRET");
  });

  test.prop([hostileDelivery], { numRuns: 1000 })(
    "parsing is idempotent: a parsed delivery parses to itself",
    (raw) => {
      const once = parseDelivery(raw);
      expect(parseDelivery(structuredClone(once))).toEqual(once);
    },
  );

  test("deliverySchema is the zod schema behind parseDelivery", () => {
    expect(deliverySchema.safeParse(base).success).toBe(true);
    expect(deliverySchema.safeParse({ ...base, created_at: "now" }).success).toBe(false);
  });
});
