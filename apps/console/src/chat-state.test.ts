import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { Turn } from "./api.ts";
import { answerOf, appendText, EMPTY_CHAT, mergeTurns, runningTurn } from "./chat-state.ts";
import { stubTurn } from "./turn-stub.ts";

const queued = (id: string, number: number): Turn =>
  stubTurn({ id, number, status: "queued", resultText: null, startedAt: null, finishedAt: null });

describe("mergeTurns", () => {
  it("inserts by id, keeps the conversation oldest first, and replaces a turn that moved on", () => {
    let state = mergeTurns(EMPTY_CHAT, [queued("b", 2)]);
    state = mergeTurns(state, [queued("a", 1)]);
    expect(state.turns.map((t) => t.id)).toEqual(["a", "b"]);
    state = mergeTurns(state, [{ ...queued("b", 2), status: "running" }]);
    expect(state.turns.map((t) => t.status)).toEqual(["queued", "running"]);
  });

  it("never lets an older copy of a turn (a list read before an event) undo its progress", () => {
    const done = stubTurn({ id: "a", status: "succeeded", resultText: "Hotovo." });
    const state = mergeTurns(mergeTurns(EMPTY_CHAT, [done]), [queued("a", 1)]);
    expect(state.turns).toEqual([done]);
  });

  it("shows the streamed blocks while a turn runs, and its stored answer once it ended", () => {
    const running = { ...queued("a", 1), status: "running" as const };
    let state = mergeTurns(EMPTY_CHAT, [running]);
    state = appendText(state, "a", "První část.");
    state = appendText(state, "a", "Druhá část.");
    expect(answerOf(state, running)).toBe("První část.\n\nDruhá část.");
    expect(runningTurn(state)?.id).toBe("a");
    const stopped = { ...running, status: "stopped" as const, resultText: null, stoppedBy: "Anna" };
    state = mergeTurns(state, [stopped]);
    expect(state.liveText).toEqual({});
    expect(answerOf(state, stopped)).toBeNull();
    // A block arriving after the end is not shown twice.
    expect(appendText(state, "a", "Pozdě.")).toBe(state);
    expect(runningTurn(state)).toBeNull();
  });

  test.prop([
    fc.array(
      fc.record({
        number: fc.integer({ min: 1, max: 6 }),
        status: fc.constantFrom("queued", "running", "succeeded", "failed", "stopped"),
      }),
      { maxLength: 30 },
    ),
  ])("holds one copy per turn, in order, whatever order the copies arrive in", (copies) => {
    let state = EMPTY_CHAT;
    for (const copy of copies) {
      state = mergeTurns(state, [stubTurn({ id: `t${copy.number}`, ...copy })]);
    }
    const numbers = state.turns.map((t) => t.number);
    expect(numbers).toEqual([...new Set(copies.map((c) => c.number))].sort((a, b) => a - b));
    // Each turn is as far as its furthest copy got.
    const rank = (status: string): number =>
      status === "queued" ? 0 : status === "running" ? 1 : 2;
    for (const turn of state.turns) {
      const furthest = Math.max(
        ...copies.filter((c) => c.number === turn.number).map((c) => rank(c.status)),
      );
      expect(rank(turn.status)).toBe(furthest);
    }
  });
});
