import { renderInline } from "./render.ts";
import type { HubDb, MemberRow } from "./schema.ts";

/** The one local server: every group (joined or not, with the caller's role), every agent and person. */
export async function serverInfo(db: HubDb, caller: MemberRow) {
  const groups = await db
    .selectFrom("hub_conversations")
    .leftJoin("hub_conversation_members", (join) =>
      join
        .onRef("hub_conversation_members.conversation_id", "=", "hub_conversations.id")
        .on("hub_conversation_members.member_id", "=", caller.id),
    )
    .select([
      "hub_conversations.id",
      "hub_conversations.name",
      "hub_conversations.description",
      "hub_conversation_members.role",
    ])
    .where("hub_conversations.kind", "=", "group")
    .orderBy("hub_conversations.name_key")
    .execute();
  const members = await db.selectFrom("hub_members").selectAll().orderBy("handle_key").execute();
  const groupViews = groups.map((g) => ({
    id: g.id,
    name: g.name ?? g.id,
    description: g.description,
    joined: g.role !== null,
    role: g.role,
  }));
  const handles = (kind: MemberRow["kind"]) =>
    members.filter((m) => m.kind === kind).map((m) => `@${m.handle}`);
  const lines = [
    "Server: local hub of this talkide-daemon",
    `You: @${caller.handle} (${caller.kind})`,
    "Groups:",
    ...groupViews.map((g) => {
      const state = g.role === null ? "not joined" : `joined, ${g.role}`;
      const purpose = g.description === null ? "" : renderInline(g.description);
      return `  #${g.name} (${state})${purpose === "" ? "" : `: ${purpose}`}`;
    }),
    `Agents: ${handles("agent").join(" ") || "none"}`,
    `Humans: ${handles("human").join(" ") || "none"}`,
  ];
  return {
    me: { handle: caller.handle, kind: caller.kind },
    groups: groupViews,
    agents: members.filter((m) => m.kind === "agent").map((m) => m.handle),
    humans: members.filter((m) => m.kind === "human").map((m) => m.handle),
    text: `${lines.join("\n")}\n`,
  };
}
