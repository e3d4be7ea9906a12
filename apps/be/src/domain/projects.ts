import { randomUUID } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Project } from "@talkide/be-api";
import { derivePorts, renderProjectYml } from "@talkide/ports";
import type { Kysely } from "kysely";
import { sql } from "kysely";
import { z } from "zod";
import { ApiError } from "@talkide/service-kit";
import { deleteRunsOf, deleteSessionsOf, engineDb } from "@talkide/turn-engine";
import { projectKey } from "../agent/project-key.ts";
import { writeFileIfChanged } from "../context/write-if-changed.ts";
import { buildRenderInput, checkRenderState, type ProjectRow } from "../context/render-state.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { toRfc3339 } from "../db/timestamps.ts";
import { blankIfInvisible, confusableSkeleton } from "./look-alikes.ts";
import {
  memberInputSchema,
  normalizeSalutationKey,
  renderedMember,
  submittedMember,
} from "./members.ts";

// Shapes only; the content rules (lengths, characters, URL form) are the render state's and
// are checked by building the state the next spawn would render (see checkRenderState).
const techField = z.string().optional();

export const projectInputSchema = z.strictObject({
  name: z.string(),
  url: z.string().nullish(),
  description: z.string().nullish(),
  backendLanguage: techField,
  backendFramework: techField,
  frontendLanguage: techField,
  frontendFramework: techField,
});

export const createProjectSchema = projectInputSchema.extend({
  /** The creator's own roster entry: how Mara addresses them, and their team briefing. */
  member: memberInputSchema,
});

export type CreateProjectInput = z.output<typeof createProjectSchema>;

/** A project as the API shows it: the shape is `@talkide/be-api`'s, which the console reads. */
export type ProjectView = Project;

export function projectView(row: ProjectRow): ProjectView {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    description: row.description,
    backendLanguage: row.backend_language,
    backendFramework: row.backend_framework,
    frontendLanguage: row.frontend_language,
    frontendFramework: row.frontend_framework,
    workspaceDir: row.workspace_dir,
    ports: derivePorts(row.id),
    createdAt: toRfc3339(row.created_at),
  };
}

const projectLimitReached = (): ApiError =>
  new ApiError(
    409,
    "project_limit_reached",
    "Project ids run from 1 to 999 because each id derives the project's ports " +
      "(8090 + id, 5200 + id) and larger ids would collide with the platform's own ports. " +
      "All 999 ids are used on this installation; this limit is the platform's own, not a " +
      "setting. An owner who deletes a project frees its id.",
    {
      title: "No project id left",
      extensions: { limit: "project_ids", max: 999, setBy: "platform" },
    },
  );

/** Projects one user may own unless the operator sets TALKIDE_PROJECTS_PER_USER. */
export const DEFAULT_PROJECTS_PER_USER = 20;

const projectQuotaReached = (max: number): ApiError =>
  new ApiError(
    409,
    "project_quota_reached",
    `You own ${max} project(s), the most this installation allows each user ` +
      "(TALKIDE_PROJECTS_PER_USER, set by its operator). Delete one of your projects, or ask " +
      "the operator to raise the limit.",
    {
      title: "Project quota reached",
      extensions: { limit: "projects_per_user", max, setBy: "operator" },
    },
  );

/** Projects the user owns (is an owner member of); counted under the creators' table lock. */
async function ownedProjectCount(trx: Kysely<DatabaseSchema>, userId: string): Promise<number> {
  const row = await trx
    .selectFrom("members")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("user_id", "=", userId)
    .where("role", "=", "owner")
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * The lowest project id in 1..999 that no project holds. Ids stay dense: a creation that
 * rolls back, or a crash, gives nothing away (a sequence would skip ids for both, and only
 * 999 exist). The table lock serializes creators, so two never pick the same id; it does not
 * block readers or the row locks roster changes take.
 */
async function nextProjectId(trx: Kysely<DatabaseSchema>): Promise<number> {
  await sql`LOCK TABLE projects IN SHARE ROW EXCLUSIVE MODE`.execute(trx);
  const { rows } = await sql<{ id: number | null }>`
    SELECT min(candidate)::integer AS id FROM generate_series(1, 999) AS candidate
    WHERE NOT EXISTS (SELECT 1 FROM projects WHERE projects.id = candidate)`.execute(trx);
  const id = rows[0]?.id ?? null;
  if (id === null) throw projectLimitReached();
  return id;
}

export function workspaceDirFor(workspacesDir: string, projectId: number): string {
  return join(workspacesDir, `project-${projectId}`);
}

/**
 * Creates a project with its creator as the first member (role owner), its workspace
 * directory and `.talkide/project.yml`. All in one transaction: when the files cannot be
 * written, the project does not exist either.
 */
export async function createProject(
  db: Kysely<DatabaseSchema>,
  options: {
    userId: string;
    workspacesDir: string;
    input: CreateProjectInput;
    /** Projects one user may own (TALKIDE_PROJECTS_PER_USER). */
    projectsPerUser?: number;
  },
): Promise<ProjectView> {
  const { input, userId } = options;
  // An invisible value (only U+200B, U+FEFF, … and white space) counts as blank: refused
  // where a value is required, null where it is optional, by the render state's own rules.
  const fields = {
    name: blankIfInvisible(input.name),
    url: blankIfInvisible(input.url ?? null),
    description: blankIfInvisible(input.description ?? null),
    ...(input.backendLanguage === undefined
      ? {}
      : { backend_language: blankIfInvisible(input.backendLanguage) }),
    ...(input.backendFramework === undefined
      ? {}
      : { backend_framework: blankIfInvisible(input.backendFramework) }),
    ...(input.frontendLanguage === undefined
      ? {}
      : { frontend_language: blankIfInvisible(input.frontendLanguage) }),
    ...(input.frontendFramework === undefined
      ? {}
      : { frontend_framework: blankIfInvisible(input.frontendFramework) }),
  };
  // Validate before anything is written: the state the first spawn would render.
  const candidate: ProjectRow = {
    id: 1,
    workspace_dir: "",
    created_at: "",
    backend_language: "Kotlin",
    backend_framework: "Spring Boot",
    frontend_language: "TypeScript",
    frontend_framework: "Vue.js",
    ...fields,
  };
  const state = checkRenderState(
    buildRenderInput(
      candidate,
      [
        {
          id: "creator",
          createdAt: new Date().toISOString(),
          ...submittedMember({
            salutation: input.member.salutation,
            teamBriefing: input.member.teamBriefing ?? null,
          }),
          role: "owner",
          userId,
          email: "",
          displayName: "",
          phone: null,
        },
      ],
      "creator",
    ),
  );
  // Stored as the render state normalized it, so the API echoes what CLAUDE.md shows.
  const normalized = {
    name: state.project.name,
    url: state.project.url,
    description: state.project.description,
    backend_language: state.project.backendLanguage,
    backend_framework: state.project.backendFramework,
    frontend_language: state.project.frontendLanguage,
    frontend_framework: state.project.frontendFramework,
  };
  const creator = renderedMember(state, "creator");

  return db.transaction().execute(async (trx) => {
    const id = await nextProjectId(trx);
    const quota = options.projectsPerUser ?? DEFAULT_PROJECTS_PER_USER;
    if ((await ownedProjectCount(trx, userId)) >= quota) throw projectQuotaReached(quota);
    const workspaceDir = workspaceDirFor(options.workspacesDir, id);
    const row = await trx
      .insertInto("projects")
      .values({ id, workspace_dir: workspaceDir, ...normalized })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto("members")
      .values({
        project_id: id,
        user_id: userId,
        role: "owner",
        salutation: creator.salutation,
        salutation_key: normalizeSalutationKey(creator.salutation),
        salutation_skeleton: confusableSkeleton(creator.salutation),
        team_briefing: creator.teamBriefing,
      })
      .execute();
    await writeFileIfChanged(join(workspaceDir, ".talkide", "project.yml"), renderProjectYml(id));
    return projectView(row);
  });
}

/** Projects the user is a member of, oldest first. */
export async function listProjects(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<ProjectView[]> {
  const rows = await db
    .selectFrom("projects")
    .innerJoin("members", "members.project_id", "projects.id")
    .selectAll("projects")
    .where("members.user_id", "=", userId)
    .where("members.removed_at", "is", null)
    .orderBy("projects.id")
    .execute();
  return rows.map(projectView);
}

/**
 * Deletes a project for one of its owners: its turns (with their events), sessions (with their
 * transcripts), members and waiting queue jobs, then its workspace; its id is free again. A
 * project whose turn runs is refused (409 `project_busy`): the turn would go on writing into
 * the workspace. The workspace is first moved aside inside the transaction, so a failed
 * deletion leaves it where it was and a new project never finds the old one's files.
 */
export async function deleteProject(
  db: Kysely<DatabaseSchema>,
  options: {
    projectId: number;
    role: "owner" | "member";
    workspaceDir: string;
    /**
     * Further directories of the project that go with it (the instruction files moved out of
     * its workspace): each moved aside beside itself in the transaction, like the workspace.
     */
    alsoDirs?: readonly string[];
    /** Deletes the project's queue jobs in the transaction; returns how many were running. */
    removeQueuedWork: (trx: Kysely<DatabaseSchema>) => Promise<number>;
  },
): Promise<void> {
  if (options.role !== "owner") {
    throw new ApiError(403, "owner_required", "Ask an owner of this project to delete it.", {
      title: "Only an owner can delete a project",
    });
  }
  const suffix = `.deleted-${randomUUID()}`;
  const moved: string[] = [];
  try {
    await db.transaction().execute(async (trx) => {
      if ((await options.removeQueuedWork(trx)) > 0) {
        throw new ApiError(
          409,
          "project_busy",
          "A turn is running for this project; delete it again once the turn has finished.",
          { title: "Mara is busy with this project" },
        );
      }
      // Turns first: they also point at members. The project's own cascade removes its
      // members; its sessions and its turns' runs are the engine's, owned by the project.
      await trx.deleteFrom("turns").where("project_id", "=", options.projectId).execute();
      const engine = engineDb(trx);
      await deleteRunsOf(engine, projectKey(options.projectId));
      await deleteSessionsOf(engine, projectKey(options.projectId));
      await trx.deleteFrom("projects").where("id", "=", options.projectId).execute();
      for (const dir of [options.workspaceDir, ...(options.alsoDirs ?? [])]) {
        try {
          await rename(dir, `${dir}${suffix}`);
          moved.push(dir);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        }
      }
    });
  } catch (error) {
    for (const dir of moved) await rename(`${dir}${suffix}`, dir).catch(() => undefined);
    throw error;
  }
  for (const dir of moved) await rm(`${dir}${suffix}`, { recursive: true, force: true });
}
