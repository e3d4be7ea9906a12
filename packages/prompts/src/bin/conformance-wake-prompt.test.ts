import { expect, test } from "vitest";
import { expectSuitePasses } from "../test-support/conformance.ts";

test(
  "the wake-prompt cases pass through the conformance runner with `talkide-prompts wake`",
  { timeout: 120_000 },
  () => {
    expect(expectSuitePasses("wake-prompt", "wake")).toBeGreaterThanOrEqual(25);
  },
);
