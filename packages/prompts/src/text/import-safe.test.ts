import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { importSafe } from "./import-safe.ts";

describe("importSafe", () => {
  test.each([
    ["@cook", "\\@cook"],
    ["a @/etc/passwd b", "a \\@/etc/passwd b"],
    ["\\@x", "\\\\\\@x"],
    ["\\\\@x", "\\\\\\\\\\@x"],
    ["back\\slash", "back\\slash"],
    ["r@example.com", "r\\@example.com"],
  ])("%j becomes %j", (value, expected) => {
    expect(importSafe(value)).toBe(expected);
  });

  test.prop([fc.string()])("every @ has an odd run of backslashes right before it", (value) => {
    const safe = importSafe(value);
    for (const match of safe.matchAll(/(\\*)@/gu)) expect((match[1] ?? "").length % 2).toBe(1);
    expect(safe.replace(/(\\*)\\@/gu, (_m, b: string) => `${b.slice(b.length / 2)}@`)).toBe(value);
  });
});
