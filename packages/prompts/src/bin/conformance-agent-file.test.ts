import { expect, test } from "vitest";
import { expectSuitePasses } from "../test-support/conformance.ts";

test("the agent-file cases pass through the conformance runner with `talkide-prompts agent-file`", () => {
  expect(expectSuitePasses("agent-file", "agent-file")).toBeGreaterThanOrEqual(1);
});
