import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { laneAgent, laneKey } from "./scheduler.ts";

describe("lane keys", () => {
  test.prop([fc.string(), fc.string()])("give back the agent they were made of", (agent, conv) => {
    expect(laneAgent(laneKey(agent, conv))).toBe(agent);
  });

  it("name no agent when they were not made by laneKey", () => {
    expect(laneAgent("not json")).toBeUndefined();
    expect(laneAgent("[1,2]")).toBeUndefined();
    expect(laneAgent('{"a":1}')).toBeUndefined();
  });
});
