import { fc, test as property } from "@fast-check/vitest";
import { describe, expect, test } from "vitest";
import { HeldEvents, LiveTurn, type TurnEvent, TurnEventHub } from "./turn-events.ts";

/** A store that takes `delayMs` per batch and records every batch it was given. */
function slowStore(delayMs: number): {
  batches: TurnEvent[][];
  persist: (events: readonly TurnEvent[]) => Promise<void>;
} {
  const batches: TurnEvent[][] = [];
  return {
    batches,
    persist: async (events) => {
      batches.push([...events]);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    },
  };
}

describe("LiveTurn stores its events in batches", () => {
  test("events emitted while a batch is being stored go together in the next one", async () => {
    const store = slowStore(20);
    const live = new LiveTurn("t", store.persist);
    live.emit("agent.text", { text: "a" });
    // The first batch starts on the next microtask: these two join it.
    live.emit("agent.text", { text: "b" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    live.emit("agent.text", { text: "c" });
    live.emit("agent.text", { text: "d" });
    await live.flushed();
    expect(store.batches.map((batch) => batch.map((event) => event.data))).toEqual([
      [{ text: "a" }, { text: "b" }],
      [{ text: "c" }, { text: "d" }],
    ]);
  });

  property.prop([fc.array(fc.tuple(fc.nat({ max: 3 }), fc.boolean()), { maxLength: 30 })])(
    "every event is stored once, in order, whatever the timing; listeners hear each at once",
    async (steps) => {
      const store = slowStore(1);
      const queued: TurnEvent = {
        seq: 1,
        type: "turn.queued",
        data: { turnId: "t", number: 1, position: 0 },
      };
      const live = new LiveTurn("t", store.persist, [queued]);
      const heard: number[] = [];
      live.subscribe((event) => heard.push(event.seq));
      let n = 0;
      for (const [count, pause] of steps) {
        for (let i = 0; i < count; i += 1) live.emit("agent.tool_use", { name: `e${(n += 1)}` });
        if (pause) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await live.flushed();
      const stored = store.batches.flat().map((event) => event.seq);
      expect(stored).toEqual(Array.from({ length: n }, (_, i) => i + 2));
      expect(heard).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
      expect(store.batches.every((batch) => batch.length > 0)).toBe(true);
    },
  );
});

describe("TurnEventHub.whenOpen", () => {
  test("is called when the turn opens here, with the turn; at once when it is open already", () => {
    const hub = new TurnEventHub();
    const opened: LiveTurn[] = [];
    hub.whenOpen("t1", (turn) => opened.push(turn));
    expect(opened).toEqual([]);
    const t1 = hub.open("t1", () => Promise.resolve());
    expect(opened).toEqual([t1]);
    hub.whenOpen("t1", (turn) => opened.push(turn));
    expect(opened).toEqual([t1, t1]);
    // Once only: a second open of the same id (never happens) calls nobody again.
    hub.open("t1", () => Promise.resolve());
    expect(opened).toHaveLength(2);
  });

  test("a cancelled wait is not called; other turns' waits are untouched", () => {
    const hub = new TurnEventHub();
    const calls: string[] = [];
    const cancel = hub.whenOpen("t1", () => calls.push("t1"));
    hub.whenOpen("t2", () => calls.push("t2"));
    cancel();
    hub.open("t1", () => Promise.resolve());
    hub.open("t2", () => Promise.resolve());
    expect(calls).toEqual(["t2"]);
  });
});

describe("HeldEvents", () => {
  test("holds until released, then passes later events straight on, in order", () => {
    const held = new HeldEvents();
    const out: string[] = [];
    held.emit("agent.text", { text: "a" });
    held.emit("agent.tool_use", { name: "b" });
    held.releaseTo({ emit: (type, data) => out.push(`${type} ${JSON.stringify(data)}`) });
    held.emit("agent.text", { text: "c" });
    expect(out).toEqual([
      'agent.text {"text":"a"}',
      'agent.tool_use {"name":"b"}',
      'agent.text {"text":"c"}',
    ]);
  });

  test("takes only the contract's names, each with its own payload (checked by the compiler)", () => {
    const held = new HeldEvents();
    // @ts-expect-error: no such event
    held.emit("agent.txt", { text: "a" });
    // @ts-expect-error: agent.text carries `text`, not `name`
    held.emit("agent.text", { name: "a" });
    // @ts-expect-error: turn.queued's position is a number
    held.emit("turn.queued", { turnId: "t", number: 1, position: "0" });
    expect(true).toBe(true);
  });
});
