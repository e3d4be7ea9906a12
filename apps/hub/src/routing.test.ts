import { describe, expect, it } from "vitest";
import { mentionedKeys } from "./mentions.ts";
import { routeMessage, type RoutingInput, type RoutingMember } from "./routing.ts";

const human = (id: string): RoutingMember => ({ id, kind: "human", handleKey: id });
const agent = (id: string): RoutingMember => ({ id, kind: "agent", handleKey: id });

const base: RoutingInput = {
  conversationKind: "group",
  threadParentKind: null,
  senderId: "alice",
  members: [human("alice"), human("bob"), agent("cook"), agent("critic"), agent("scout")],
  mentionedKeys: new Set(),
  assigneeId: null,
  threadParticipantIds: new Set(),
};

describe("routeMessage", () => {
  it("wakes every other agent of a group: assignment, then mention, then ambient; never people", () => {
    const routes = routeMessage({
      ...base,
      mentionedKeys: new Set(["critic", "cook", "bob"]),
      assigneeId: "cook",
    });
    expect(routes).toEqual([
      { recipientId: "cook", reason: "assignment" },
      { recipientId: "critic", reason: "mention" },
      { recipientId: "scout", reason: "ambient" },
    ]);
  });

  it("never routes to the sender, even when it mentions or assigns itself", () => {
    const routes = routeMessage({
      ...base,
      senderId: "cook",
      mentionedKeys: new Set(["cook"]),
      assigneeId: "cook",
    });
    expect(routes.map((r) => r.recipientId)).toEqual(["critic", "scout"]);
  });

  it("routes a DM (and a thread in a DM) to the peer as dm", () => {
    const members = [human("alice"), agent("cook")];
    expect(routeMessage({ ...base, conversationKind: "dm", members })).toEqual([
      { recipientId: "cook", reason: "dm" },
    ]);
    expect(
      routeMessage({ ...base, conversationKind: "thread", threadParentKind: "dm", members }),
    ).toEqual([{ recipientId: "cook", reason: "dm" }]);
    expect(
      routeMessage({ ...base, conversationKind: "dm", members, mentionedKeys: new Set(["cook"]) }),
    ).toEqual([{ recipientId: "cook", reason: "mention" }]);
  });

  it("in a group thread, wakes earlier participants (thread_follow) and mentioned agents only", () => {
    const routes = routeMessage({
      ...base,
      conversationKind: "thread",
      threadParentKind: "group",
      threadParticipantIds: new Set(["alice", "critic"]),
      mentionedKeys: new Set(["scout"]),
    });
    expect(routes).toEqual([
      { recipientId: "critic", reason: "thread_follow" },
      { recipientId: "scout", reason: "mention" },
    ]);
  });
});

describe("mentionedKeys", () => {
  it("finds @handles case-insensitively, with sentence punctuation after them", () => {
    expect([...mentionedKeys("Hi @Cook. And @critic, @scout! @a.b-c_")].sort()).toEqual(
      ["a.b-c", "a.b-c_", "cook", "cook.", "critic", "scout"].sort(),
    );
  });

  it("ignores e-mail addresses and lone @", () => {
    expect([...mentionedKeys("mail bob@example.com or @ or x@y")]).toEqual([]);
  });

  it("reads non-Latin handles", () => {
    expect([...mentionedKeys("ahoj @Jiří a @Жора")]).toEqual(["jiří", "жора"]);
  });
});
