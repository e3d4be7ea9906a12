import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { chooseSession } from "./session-choice.ts";

interface Session {
  readonly runtimeId: string | null;
  readonly at: string | null;
  readonly current: boolean;
}

const facts = {
  pointOf: (s: Session) => (s.runtimeId === null ? null : { id: s.runtimeId, at: s.at }),
  isCurrent: (s: Session) => s.current,
};

describe("chooseSession", () => {
  it("starts a session when none is open", () => {
    expect(chooseSession(null, facts)).toEqual({ kind: "new" });
  });

  it("continues a begun session at its point, and ends one pinned elsewhere", () => {
    const begun = { runtimeId: "rt-1", at: "m-1", current: true };
    expect(chooseSession(begun, facts)).toEqual({
      kind: "continue",
      session: begun,
      point: { id: "rt-1", at: "m-1" },
    });
    const stale = { ...begun, current: false };
    expect(chooseSession(stale, facts)).toEqual({ kind: "end", session: stale });
  });

  it("begins a session none of whose turns succeeded in place, wherever it was pinned", () => {
    for (const current of [true, false]) {
      const session = { runtimeId: null, at: null, current };
      expect(chooseSession(session, facts)).toEqual({ kind: "begin", session });
    }
  });

  test.prop([
    fc.option(
      fc.record({
        runtimeId: fc.option(fc.uuid(), { nil: null }),
        at: fc.option(fc.uuid(), { nil: null }),
        current: fc.boolean(),
      }),
      { nil: null },
    ),
  ])("resumes only a begun session pinned to now, and ends only a begun one", (session) => {
    const choice = chooseSession(session, facts);
    const begun = session !== null && session.runtimeId !== null;
    expect(choice.kind === "continue").toBe(begun && session.current);
    expect(choice.kind === "end").toBe(begun && !session.current);
    if (choice.kind === "continue") expect(choice.point.id).toBe(session?.runtimeId);
  });
});
