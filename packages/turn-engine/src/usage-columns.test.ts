import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { sessionCacheReuseOf, usageColumns, usageFromColumns } from "./usage-columns.ts";

const count = fc.nat({ max: 10_000_000 });

describe("token usage columns", () => {
  test.prop([
    fc.record({
      inputTokens: count,
      cacheCreationInputTokens: count,
      cacheReadInputTokens: count,
      outputTokens: count,
    }),
  ])("read back exactly what was written", (usage) => {
    expect(usageFromColumns(usageColumns(usage))).toEqual(usage);
  });

  it("stores no tokens as four nulls and reads them back as none", () => {
    expect(usageColumns(null)).toEqual({
      input_tokens: null,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      output_tokens: null,
    });
    expect(usageFromColumns({ ...usageColumns(null), input_tokens: 5 })).toBeNull();
  });

  test.prop([count, count, fc.boolean()])(
    "gives a session's reuse within 0..1, from numbers or the decimal strings a driver returns",
    (read, other, asText) => {
      const total = read + other;
      const row = asText
        ? { session_input_tokens: String(total), session_cache_read_tokens: String(read) }
        : { session_input_tokens: total, session_cache_read_tokens: read };
      const reuse = sessionCacheReuseOf(row);
      if (reuse !== null) {
        expect(reuse).toBeGreaterThanOrEqual(0);
        expect(reuse).toBeLessThanOrEqual(1);
      }
      expect(
        sessionCacheReuseOf({ session_input_tokens: null, session_cache_read_tokens: read }),
      ).toBeNull();
    },
  );
});
