import { expect, test } from "vitest";
import { expectSuitePasses } from "../test-support/conformance.ts";

test(
  "the wake-prompt cases pass through the conformance runner with `talkide-prompts wake`",
  // About a hundred cases, each a fresh node process: minutes on a loaded 2-core machine.
  { timeout: 480_000 },
  () => {
    expect(expectSuitePasses("wake-prompt", "wake")).toBeGreaterThanOrEqual(25);
  },
);
