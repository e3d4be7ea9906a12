import type { Kysely } from "kysely";
import type { ProjectRow } from "../context/render-state.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { notFound } from "../errors.ts";

// A module of its own so that members.ts and projects.ts both depend on it and not on each
// other.

export interface Membership {
  readonly project: ProjectRow;
  readonly memberId: string;
  readonly role: "owner" | "member";
}

/**
 * The caller's membership of a project. A project the caller is not a member of is reported
 * exactly like one that does not exist, so ids reveal nothing about other people's projects.
 */
export async function requireMembership(
  db: Kysely<DatabaseSchema>,
  projectId: number,
  userId: string,
): Promise<Membership> {
  const row = await db
    .selectFrom("projects")
    .innerJoin("members", "members.project_id", "projects.id")
    .selectAll("projects")
    .select(["members.id as member_id", "members.role as member_role"])
    .where("projects.id", "=", projectId)
    .where("members.user_id", "=", userId)
    .where("members.removed_at", "is", null)
    .executeTakeFirst();
  if (row === undefined) throw notFound("project_not_found", "Project");
  const { member_id, member_role, ...project } = row;
  return { project, memberId: member_id, role: member_role };
}
