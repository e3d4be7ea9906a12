import { toRosterMember, type MemberUserRow } from "@talkide/privacy";
import { parseRenderState, type RenderState, type RenderStateError } from "@talkide/renderer";
import type { Kysely, Selectable } from "kysely";
import { ApiError } from "@talkide/service-kit";
import type { DatabaseSchema, MemberRole, ProjectsTable } from "../db/schema.ts";
import { toRfc3339 } from "../db/timestamps.ts";

export type ProjectRow = Selectable<ProjectsTable>;

/**
 * Everything the database knows about a member and their user. It deliberately carries the
 * personal columns too: the privacy projection (`toRosterMember`) is the only gate between
 * this row and the render state, and the tests prove that gate with canary values.
 */
export interface MemberWithUser extends MemberUserRow {
  readonly id: string;
  readonly createdAt: string;
  readonly salutation: string;
  readonly teamBriefing: string | null;
  readonly role: MemberRole;
  readonly userId: string;
  readonly email: string | null;
  readonly displayName: string;
  readonly phone: string | null;
}

export function renderProjectOf(project: ProjectRow): Record<string, unknown> {
  return {
    id: project.id,
    name: project.name,
    url: project.url,
    description: project.description,
    backendLanguage: project.backend_language,
    backendFramework: project.backend_framework,
    frontendLanguage: project.frontend_language,
    frontendFramework: project.frontend_framework,
  };
}

/** The render-state document (contract 1.2) for a project, its members and the writer. */
export function buildRenderInput(
  project: ProjectRow,
  members: readonly MemberWithUser[],
  activeMemberId: string,
): unknown {
  return {
    project: renderProjectOf(project),
    team: members.map((member) => toRosterMember(member)),
    activeMemberId,
  };
}

export async function loadProjectRow(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<ProjectRow | undefined> {
  return db.selectFrom("projects").selectAll().where("id", "=", projectId).executeTakeFirst();
}

export async function loadMembersWithUsers(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<MemberWithUser[]> {
  const rows = await db
    .selectFrom("members")
    .innerJoin("users", "users.id", "members.user_id")
    .select([
      "members.id as id",
      "members.created_at as created_at",
      "members.salutation as salutation",
      "members.team_briefing as team_briefing",
      "members.role as role",
      "members.user_id as user_id",
      "users.email as email",
      "users.display_name as display_name",
      "users.phone as phone",
    ])
    .where("members.project_id", "=", projectId)
    .where("members.removed_at", "is", null)
    // Roster order (contract 1.2); the renderer orders again, the API lists in this order.
    .orderBy("members.created_at")
    .orderBy("members.id")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    createdAt: toRfc3339(row.created_at),
    salutation: row.salutation,
    teamBriefing: row.team_briefing,
    role: row.role,
    userId: row.user_id,
    email: row.email,
    displayName: row.display_name,
    phone: row.phone,
  }));
}

/** Which API field a render-state path refers to (`team[2].salutation` → `salutation`). */
function apiFieldOf(path: string): string {
  const last = /([A-Za-z]+)$/.exec(path)?.[1];
  return last ?? path;
}

/**
 * A render-state refusal as an API error. The API validates every change by building the
 * state the next spawn would render, so what the renderer refuses never reaches the database.
 */
export function renderErrorToApiError(error: RenderStateError): ApiError {
  if (error.code === "duplicate_member") {
    return new ApiError(
      409,
      "salutation_taken",
      "Another member of this project already has this salutation (compared ignoring case); choose a different one.",
      { title: "Salutation already used in this project", extensions: { field: "salutation" } },
    );
  }
  if (error.path === "team" && error.code === "invalid_field") {
    return new ApiError(
      409,
      "team_full",
      "A project has at most 50 members; no member can be added.",
      { title: "Team is full" },
    );
  }
  const field = apiFieldOf(error.path);
  return new ApiError(
    400,
    "invalid_field",
    // The renderer's message names the field and the rule, never the value.
    `${field}: ${error.message.replace(/^\S+ /, "")}.`,
    { title: "Invalid field", extensions: { field, rule: error.code } },
  );
}

/** Parses a render-state document or throws the matching API error. */
export function checkRenderState(input: unknown): RenderState {
  const result = parseRenderState(input);
  if (!result.ok) throw renderErrorToApiError(result.error);
  return result.state;
}
