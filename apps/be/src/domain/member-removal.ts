import { sql, type Kysely } from "kysely";
import { ApiError } from "@talkide/service-kit";
import { loadMembersWithUsers } from "../context/render-state.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { notFound } from "../errors.ts";
import { hasOtherOwner, lastOwner, lockProject, recordRosterEvent } from "./members.ts";
import type { Membership } from "./membership.ts";

/**
 * Ends a membership: an owner removes anyone, a member removes themselves (leaves). The last
 * owner stays (`409 last_owner`). The row is kept, marked removed, so that the turns the
 * member wrote still name their writer; from this moment the member opens nothing in the
 * project (every request checks membership, open event streams check it again; see
 * http/sse.ts) and the next CLAUDE.md lists them no more. Returns the removed member's id.
 */
export async function removeMember(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  memberId: string,
): Promise<string> {
  const leaving = memberId === membership.memberId;
  if (!leaving && membership.role !== "owner") {
    throw new ApiError(
      403,
      "owner_required",
      "You can leave the project yourself; ask an owner to remove someone else.",
      { title: "Only an owner can remove members" },
    );
  }
  const projectId = membership.project.id;
  return db.transaction().execute(async (trx) => {
    await lockProject(trx, projectId);
    const members = await loadMembersWithUsers(trx, projectId);
    const target = members.find((m) => m.id === memberId);
    if (target === undefined) throw notFound("member_not_found", "Member");
    if (target.role === "owner" && !hasOtherOwner(members, memberId)) throw lastOwner();
    await trx
      .updateTable("members")
      .set({ removed_at: sql<string>`clock_timestamp()` })
      .where("id", "=", memberId)
      .where("project_id", "=", projectId)
      .execute();
    await recordRosterEvent(trx, projectId, "member.left", memberId);
    return memberId;
  });
}

/** Whether a member still belongs to their project (open streams ask this again and again). */
export async function memberIsCurrent(
  db: Kysely<DatabaseSchema>,
  memberId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom("members")
    .select("id")
    .where("id", "=", memberId)
    .where("removed_at", "is", null)
    .executeTakeFirst();
  return row !== undefined;
}
