import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  isCurrentSession,
  resolveSessionScope,
  sessionPatchAfterTurn,
  type LiveSession,
} from "./scope.ts";

const live = (over: Partial<LiveSession> = {}): LiveSession => ({
  id: "s1",
  runtimeSessionId: "rt-1",
  resumeAtMessageId: "m-1",
  standingPromptVersion: "v1",
  cumulativeCostUsd: 0.5,
  ...over,
});

describe("isCurrentSession", () => {
  it("keeps a session of the same standing prompt version and replaces one of another", () => {
    expect(isCurrentSession(live(), "v1")).toBe(true);
    expect(isCurrentSession(live(), "v2")).toBe(false);
  });
});

describe("resolveSessionScope", () => {
  it("starts the first turn of a conversation fresh", () => {
    expect(resolveSessionScope(null, "v1")).toEqual({
      kind: "fresh",
      reuseSessionId: null,
      invalidate: null,
    });
  });

  it("resumes a live session with the same standing prompt", () => {
    expect(resolveSessionScope(live(), "v1")).toEqual({
      kind: "resume",
      sessionId: "s1",
      runtimeSessionId: "rt-1",
      resumeAtMessageId: "m-1",
      previousCumulativeCostUsd: 0.5,
    });
  });

  it("replaces a session started with another standing prompt", () => {
    expect(resolveSessionScope(live(), "v2")).toEqual({
      kind: "fresh",
      reuseSessionId: null,
      invalidate: { sessionId: "s1", reason: "standing_prompt_changed" },
    });
  });

  it("reuses a live session whose first turn never produced a runtime session", () => {
    expect(resolveSessionScope(live({ runtimeSessionId: null }), "v1")).toEqual({
      kind: "fresh",
      reuseSessionId: "s1",
      invalidate: null,
    });
  });

  it("reuses a session that has not begun under another standing prompt too: nothing of it is lost", () => {
    expect(resolveSessionScope(live({ runtimeSessionId: null }), "v2")).toEqual({
      kind: "fresh",
      reuseSessionId: "s1",
      invalidate: null,
    });
  });

  test.prop(
    [
      fc.option(
        fc.record({
          id: fc.uuid(),
          runtimeSessionId: fc.option(fc.uuid(), { nil: null }),
          resumeAtMessageId: fc.option(fc.uuid(), { nil: null }),
          standingPromptVersion: fc.constantFrom("a", "b"),
          cumulativeCostUsd: fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: null }),
        }),
        { nil: null },
      ),
      fc.constantFrom("a", "b"),
    ],
    { numRuns: 1000 },
  )(
    "never resumes across standing prompt versions, and resumes whenever it safely can",
    (session, version) => {
      const scope = resolveSessionScope(session, version);
      const canResume =
        session !== null &&
        session.standingPromptVersion === version &&
        session.runtimeSessionId !== null;
      expect(scope.kind === "resume").toBe(canResume);
      if (scope.kind === "resume") {
        expect(scope.runtimeSessionId).toBe(session?.runtimeSessionId);
        expect(scope.resumeAtMessageId).toBe(session?.resumeAtMessageId);
      }
      if (scope.kind === "fresh" && scope.invalidate !== null) {
        expect(session?.standingPromptVersion).not.toBe(version);
      }
    },
  );
});

describe("sessionPatchAfterTurn", () => {
  it("records the runtime session of a successful turn and where the next one resumes", () => {
    const scope = resolveSessionScope(null, "v1");
    expect(
      sessionPatchAfterTurn(scope, { ok: true, runtimeSessionId: "rt-9", lastMessageId: "m-9" }),
    ).toEqual({ runtimeSessionId: "rt-9", resumeAtMessageId: "m-9" });
    expect(
      sessionPatchAfterTurn(resolveSessionScope(live(), "v1"), {
        ok: true,
        runtimeSessionId: "rt-1",
        lastMessageId: null,
      }),
    ).toEqual({ runtimeSessionId: "rt-1", resumeAtMessageId: null });
  });

  it("changes nothing after a failed turn (the session stays usable)", () => {
    expect(sessionPatchAfterTurn(resolveSessionScope(live(), "v1"), { ok: false })).toBeNull();
  });
});
