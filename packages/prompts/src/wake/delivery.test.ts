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
    [{ ...base, seq: 2 ** 53 }, "invalid_field", "seq"],
    [{ ...base, seq: "18446744073709551615" }, null, null],
    [{ ...base, seq: "" }, "invalid_field", "seq"],
    [{ ...base, id: "x".repeat(65) }, "invalid_field", "id"],
    [{ ...base, id: "x".repeat(64) }, null, null],
    [{ ...base, sender_agent_id: "" }, "invalid_field", "sender_agent_id"],
    [{ ...base, message_metadata: "quote" }, "invalid_field", "message_metadata"],
    [
      { ...base, message_metadata: { quote: { kind: "message", ref: 5 } } },
      "invalid_field",
      "message_metadata.quote.ref",
    ],
    [{ ...base, task_assignee_type: "agent" }, "missing_field", "task_assignee_agent_id"],
    [{ ...base, conversation_type: "thread" }, "missing_field", "thread_root_message_id"],
    [{ ...base, reactions_summary: ["a", "［b］"] }, "invalid_field", "reactions_summary[1]"],
    [{ ...base, reactions_summary: ["a；b"] }, "invalid_field", "reactions_summary[0]"],
    [{ ...base, text: "a\ud800" }, "invalid_field", "text"],
    ["text", "invalid_field", ""],
    [null, "invalid_field", ""],
  ])("%j → %s at %s", (input, code, path) => {
    if (code === null) {
      expect(() => parseDelivery(input)).not.toThrow();
      return;
    }
    expect(errorOf(input)).toMatchObject({ code, path });
  });

  test("the first fault in field order is reported, the same every time", () => {
    const input = { ...base, seq: -1, sender_type: "bot" };
    expect(errorOf(input)).toMatchObject({ code: "invalid_field", path: "seq" });
    expect(errorOf(structuredClone(input))).toMatchObject({ code: "invalid_field", path: "seq" });
  });

  test.prop(
    [
      fc.constantFrom("id", "conversation_id", "sender_user_id", "created_at", "reason", "seq"),
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
    expect(deliverySchema.safeParse({ ...base, seq: -1 }).success).toBe(false);
  });
});
