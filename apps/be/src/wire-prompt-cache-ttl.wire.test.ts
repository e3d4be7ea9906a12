import { cacheControls, type RecordedRequest } from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realClaudeCanRun, startWireBench, type WireBench } from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("The backend's prompt-cache lifetime at the wire");

/** The ScheduleWakeup tool's description: the CLI words it after the cache's lifetime. */
function scheduleWakeupDescription(request: RecordedRequest): string {
  const tools = (request.body as { tools?: Array<{ name?: string; description?: string }> }).tools;
  return tools?.find((tool) => tool.name === "ScheduleWakeup")?.description ?? "";
}

/**
 * `TALKIDE_PROMPT_CACHE_TTL` (README): the default `1h` reaches the provider as the pinned
 * CLI's 1-hour cache (every breakpoint `ttl: "1h"`, the extended-TTL beta, the 1-hour wording
 * of ScheduleWakeup); `5m` leaves the CLI's own requests as they were before the setting.
 */
describe.skipIf(!canRun)("the backend's prompt-cache lifetime, at the wire", () => {
  const benches: WireBench[] = [];
  const firstRequest: Partial<Record<"default" | "5m", RecordedRequest>> = {};

  beforeAll(async () => {
    for (const [label, env] of [
      ["default", {}],
      ["5m", { TALKIDE_PROMPT_CACHE_TTL: "5m" }],
    ] as const) {
      const bench = await startWireBench("split", env);
      benches.push(bench);
      bench.fake.setReply({ text: "Rozumím." });
      const project = await bench.newProject();
      firstRequest[label] = await bench.turn(bench.anna, project.id, "Ahoj Maro.", label);
    }
  }, 300_000);

  afterAll(async () => {
    for (const bench of benches) await bench.close();
  });

  it("asks for the 1-hour cache by default", () => {
    const request = firstRequest.default;
    if (request === undefined) throw new Error("no request for the default");
    const markers = cacheControls(request.body);
    expect(markers.length).toBeGreaterThan(0);
    expect(markers).toEqual(markers.map(() => ({ type: "ephemeral", ttl: "1h" })));
    expect(request.headers["anthropic-beta"]).toContain("extended-cache-ttl-2025-04-11");
    expect(scheduleWakeupDescription(request)).toContain("1-hour");
    const ledger = benches[0]?.fake.cacheLedger().find((e) => e.requestIndex === request.index);
    expect(ledger?.write1h).toBeGreaterThan(0);
    expect(ledger?.write5m).toBe(0);
  });

  it("sends the CLI's own 5-minute requests with TALKIDE_PROMPT_CACHE_TTL=5m", () => {
    const request = firstRequest["5m"];
    if (request === undefined) throw new Error("no request for 5m");
    const markers = cacheControls(request.body);
    expect(markers.length).toBeGreaterThan(0);
    expect(markers).toEqual(markers.map(() => ({ type: "ephemeral" })));
    expect(request.rawBody).not.toContain('"ttl"');
    expect(request.headers["anthropic-beta"] ?? "").not.toContain("extended-cache-ttl");
    expect(scheduleWakeupDescription(request)).toContain("5-minute");
    const ledger = benches[1]?.fake.cacheLedger().find((e) => e.requestIndex === request.index);
    expect(ledger?.write5m).toBeGreaterThan(0);
    expect(ledger?.write1h).toBe(0);
  });
});
