import { describe, expect, it } from "vitest";
import { coalescing } from "./project-usage.ts";

describe("coalescing", () => {
  it("runs once more after the run on its way, however many calls came meanwhile", async () => {
    const releases: Array<() => void> = [];
    let runs = 0;
    const run = coalescing(async () => {
      runs += 1;
      await new Promise<void>((resolve) => releases.push(resolve));
    });
    const first = run();
    const more = [run(), run(), run()];
    expect(runs).toBe(1);
    releases.shift()?.();
    // The calls that came during the first run made one more run, which reads fresh figures.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runs).toBe(2);
    releases.shift()?.();
    await Promise.all([first, ...more]);
    expect(runs).toBe(2);
    // Once idle, a call runs again.
    const later = run();
    expect(runs).toBe(3);
    releases.shift()?.();
    await later;
  });

  it("keeps working after a run failed", async () => {
    let runs = 0;
    const run = coalescing(() => {
      runs += 1;
      return runs === 1 ? Promise.reject(new Error("away")) : Promise.resolve();
    });
    await expect(run()).rejects.toThrow("away");
    await run();
    expect(runs).toBe(2);
  });
});
