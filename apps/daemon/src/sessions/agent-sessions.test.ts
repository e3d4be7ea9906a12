import { fc, test } from "@fast-check/vitest";
import { chooseSession, isPinnedTo, pinnedTo, type SessionRow } from "@talkide/turn-engine";
import { describe, expect, it } from "vitest";
import { agentIdOf, agentOwner, conversationScope } from "./agent-sessions.ts";

const open = (over: Partial<SessionRow> = {}): SessionRow => ({
  id: "s1",
  scope: "agent:a1/conversation:c1",
  owner: "agent:a1",
  conversation: "c1",
  pin: "v1",
  claude_session_id: "rt-1",
  resume_at_message_id: "m-1",
  turn_count: 1,
  cumulative_cost_usd: 0.5,
  created_at: new Date(0),
  updated_at: new Date(0),
  ended_at: null,
  end_reason: null,
  ...over,
});

describe("isPinnedTo", () => {
  it("keeps a session of the same standing prompt version and replaces one of another", () => {
    expect(isPinnedTo(open(), "v1")).toBe(true);
    expect(isPinnedTo(open(), "v2")).toBe(false);
  });
});

describe("the daemon's session choice (the engine's rule on the daemon's facts)", () => {
  it("starts the first turn of a conversation fresh", () => {
    expect(chooseSession(null, pinnedTo("v1"))).toEqual({ kind: "new" });
  });

  it("resumes an open session with the same standing prompt, where its last turn left it", () => {
    const session = open();
    expect(chooseSession(session, pinnedTo("v1"))).toEqual({
      kind: "continue",
      session,
      point: { id: "rt-1", at: "m-1" },
    });
  });

  it("replaces a session started with another standing prompt", () => {
    const session = open();
    expect(chooseSession(session, pinnedTo("v2"))).toEqual({ kind: "end", session });
  });

  it("reuses an open session whose first turn never produced a runtime session", () => {
    const session = open({ claude_session_id: null });
    expect(chooseSession(session, pinnedTo("v1"))).toEqual({ kind: "begin", session });
  });

  it("reuses a session that has not begun under another standing prompt too: nothing of it is lost", () => {
    const session = open({ claude_session_id: null });
    expect(chooseSession(session, pinnedTo("v2"))).toEqual({ kind: "begin", session });
  });

  test.prop(
    [
      fc.option(
        fc.record({
          id: fc.uuid(),
          claude_session_id: fc.option(fc.uuid(), { nil: null }),
          resume_at_message_id: fc.option(fc.uuid(), { nil: null }),
          pin: fc.constantFrom("a", "b"),
        }),
        { nil: null },
      ),
      fc.constantFrom("a", "b"),
    ],
    { numRuns: 1000 },
  )(
    "never resumes across standing prompt versions, and resumes whenever it safely can",
    (facts, version) => {
      const session = facts === null ? null : open(facts);
      const choice = chooseSession(session, pinnedTo(version));
      const canResume =
        session !== null && session.pin === version && session.claude_session_id !== null;
      expect(choice.kind === "continue").toBe(canResume);
      if (choice.kind === "continue") {
        expect(choice.point.id).toBe(session?.claude_session_id);
        expect(choice.point.at).toBe(session?.resume_at_message_id);
      }
      if (choice.kind === "end") expect(session?.pin).not.toBe(version);
    },
  );
});

describe("a conversation's scope", () => {
  it("is one key per (agent, conversation), owned by the agent", () => {
    expect(conversationScope("a1", "c1")).toEqual({
      scope: "agent:a1/conversation:c1",
      owner: "agent:a1",
      conversation: "c1",
    });
    expect(agentOwner("a1")).toBe("agent:a1");
  });

  it("names the agent its session belongs to", () => {
    expect(agentIdOf(open({ owner: agentOwner("a.b-c_1") }))).toBe("a.b-c_1");
  });
});
