import { expect, test } from "vitest";
import { expectSuitePasses } from "../test-support/conformance.ts";

test("the standing-prompt cases pass through the conformance runner with `talkide-prompts standing`", () => {
  expect(expectSuitePasses("standing-prompt", "standing")).toBeGreaterThanOrEqual(3);
});
