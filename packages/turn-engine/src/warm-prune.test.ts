import type { SessionPoints } from "@talkide/claude-cli";
import { describe, expect, it } from "vitest";
import { pruneMovedWarmProcesses, WARM_PRUNE_EVERY_MS } from "./warm-prune.ts";

describe("the warm processes kept in step with their sessions", () => {
  it("asks the host where the kept sessions stand, on the engine's cadence, and logs what happened", async () => {
    const asked: string[][] = [];
    const logged: Array<[string, Record<string, unknown>, string]> = [];
    const points: SessionPoints = new Map([["k1", { id: "s", at: null }]]);
    let report: { onEnded(count: number): void; onError(error: unknown): void } | undefined;
    let everyMs = 0;
    let query: ((keys: readonly string[]) => Promise<SessionPoints>) | undefined;
    let stopped = false;
    const stop = pruneMovedWarmProcesses(
      {
        pruneMovedEvery: (ms, pointsOf, r) => {
          everyMs = ms;
          query = pointsOf;
          report = r;
          return () => {
            stopped = true;
          };
        },
      },
      {
        sessionPoints: (keys) => {
          asked.push([...keys]);
          return Promise.resolve(points);
        },
        log: {
          info: (fields, message) => logged.push(["info", fields, message]),
          warn: (fields, message) => logged.push(["warn", fields, message]),
        },
      },
    );
    expect(everyMs).toBe(WARM_PRUNE_EVERY_MS);
    expect(await query?.(["k1", "k2"])).toBe(points);
    expect(asked).toEqual([["k1", "k2"]]);
    report?.onEnded(2);
    const failure = new Error("database unreachable");
    report?.onError(failure);
    expect(logged).toEqual([
      ["info", { ended: 2 }, "ended warm processes whose session moved on"],
      ["warn", { err: failure }, "could not check warm processes against their sessions"],
    ]);
    stop();
    expect(stopped).toBe(true);
  });
});
