import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { beside, type HeldEvents, type TurnEvents } from "./beside.ts";

interface Sink {
  emit(name: string): void;
}

function recorder(): { events: TurnEvents<Sink>; heard: string[] } {
  const heard: string[] = [];
  const live: Sink = { emit: (name) => heard.push(name) };
  const hold = (): HeldEvents<Sink> => {
    const held: string[] = [];
    let target: Sink | null = null;
    return {
      emit: (name) => {
        if (target === null) held.push(name);
        else target.emit(name);
      },
      releaseTo: (to) => {
        target = to;
        for (const name of held.splice(0)) to.emit(name);
      },
    };
  };
  return { events: { live, hold }, heard };
}

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("beside", () => {
  test.prop([fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 4 })])(
    "reports as if the listed stages ran one after the other, however long each takes",
    async (delays) => {
      const { events, heard } = recorder();
      const stages = Object.fromEntries(
        delays.map((delay, index) => [
          `s${String(index)}`,
          async (to: Sink) => {
            to.emit(`s${String(index)} begins`);
            await tick(delay);
            to.emit(`s${String(index)} ends`);
            return index;
          },
        ]),
      );
      const order = Object.keys(stages).reverse();
      const results = await beside(events, stages, order);
      expect(heard).toEqual(order.flatMap((name) => [`${name} begins`, `${name} ends`]));
      expect(Object.values(results)).toEqual(delays.map((_, index) => index));
    },
  );

  it("starts every stage in the order given and lets an unlisted one report as it goes", async () => {
    const { events, heard } = recorder();
    const started: string[] = [];
    await beside(
      events,
      {
        run: async (to: Sink) => {
          started.push("run");
          to.emit("agent");
          await tick(5);
          to.emit("agent");
        },
        record: async (to: Sink) => {
          started.push("record");
          await tick(1);
          to.emit("recorded");
        },
        report: async (to: Sink) => {
          started.push("report");
          await tick(10);
          to.emit("ports");
        },
      },
      ["report", "run"],
    );
    expect(started).toEqual(["run", "record", "report"]);
    expect(heard).toEqual(["recorded", "ports", "agent", "agent"]);
  });

  it("throws the first failure in start order only once every stage has settled", async () => {
    const { events } = recorder();
    const finished: string[] = [];
    const running = beside(events, {
      first: async () => {
        await tick(5);
        finished.push("first");
        throw new Error("first failed");
      },
      second: async () => {
        await tick(1);
        finished.push("second");
        throw new Error("second failed");
      },
      slow: async () => {
        await tick(20);
        finished.push("slow");
      },
    });
    await expect(running).rejects.toThrow("first failed");
    expect(finished).toEqual(["second", "first", "slow"]);
  });
});
