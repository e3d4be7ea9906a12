import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { confusableSkeleton } from "./frozen/0009-confusable-skeleton.ts";
import {
  normalizeRenderState,
  toRfc3339,
  type NormalizedState,
} from "./frozen/0009-render-state.ts";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001). The text
// rules too are those of the time: frozen copies (./frozen/README.md), not the live renderer
// and look-alike rules, so a database that meets this migration years later gets what one
// that met it on release day got.

interface ProjectAtThisTime {
  id: number;
  name: string;
  url: string | null;
  description: string | null;
  backend_language: string;
  backend_framework: string;
  frontend_language: string;
  frontend_framework: string;
}

interface MemberAtThisTime {
  id: string;
  project_id: number;
  created_at: string;
  salutation: string;
  team_briefing: string | null;
}

/**
 * One truth for user text, and no look-alike members (issue 29).
 *
 * - Earlier releases stored the project's and the members' text as submitted, while CLAUDE.md
 *   shows it normalized (NFC, trimmed, briefings' line ends unified, …): the API echoed
 *   `"Anna\u2028"` where Mara read `Anna`. From now on the normalized value is stored; here
 *   every existing row is rewritten to it, by the render state's own normalization
 *   (`parseRenderState`), so old databases show the same truth. A project whose state does
 *   not render (none should exist: every change was checked by rendering) keeps its text.
 * - `members.salutation_skeleton`: each salutation's look (`confusableSkeleton`), unique
 *   per project, so two concurrent changes cannot both give a project look-alike members.
 *   Two members who already look alike are both kept (refusing to open the database, or
 *   renaming someone, would be worse): the earlier one, in roster order, gets the key, the
 *   later one null, which the unique index admits; the backend refuses the later one's next
 *   salutation change until it no longer looks like anyone's.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("members").addColumn("salutation_skeleton", "text").execute();

  const projects = await sql<ProjectAtThisTime>`
    SELECT id, name, url, description, backend_language, backend_framework,
           frontend_language, frontend_framework
    FROM projects ORDER BY id`.execute(db);
  const members = await sql<MemberAtThisTime>`
    SELECT id, project_id, created_at, salutation, team_briefing
    FROM members ORDER BY project_id, created_at, id`.execute(db);

  for (const project of projects.rows) {
    const team = members.rows.filter((m) => m.project_id === project.id);
    if (team.length === 0) continue;
    const normalized = normalize(project, team);
    if (normalized !== null) await storeNormalized(db, project, team, normalized);
    const taken = new Set<string>();
    for (const member of team) {
      const salutation =
        normalized?.team.find((m) => m.id === member.id)?.salutation ?? member.salutation;
      const key = confusableSkeleton(salutation);
      if (taken.has(key)) continue; // a look-alike of an earlier member: stays null
      taken.add(key);
      await sql`UPDATE members SET salutation_skeleton = ${key} WHERE id = ${member.id}`.execute(
        db,
      );
    }
  }

  await sql`CREATE UNIQUE INDEX members_project_salutation_skeleton_key
    ON members (project_id, salutation_skeleton)`.execute(db);
}

/** The render state's normalization of a stored project and its team, or null. */
function normalize(
  project: ProjectAtThisTime,
  team: readonly MemberAtThisTime[],
): NormalizedState | null {
  return normalizeRenderState({
    project: {
      id: project.id,
      name: project.name,
      url: project.url,
      description: project.description,
      backendLanguage: project.backend_language,
      backendFramework: project.backend_framework,
      frontendLanguage: project.frontend_language,
      frontendFramework: project.frontend_framework,
    },
    team: team.map((m) => ({
      id: m.id,
      createdAt: toRfc3339(m.created_at),
      salutation: m.salutation,
      teamBriefing: m.team_briefing,
    })),
    activeMemberId: team[0]?.id ?? "",
  });
}

async function storeNormalized(
  db: Kysely<unknown>,
  project: ProjectAtThisTime,
  team: readonly MemberAtThisTime[],
  state: NormalizedState,
): Promise<void> {
  const p = state.project;
  if (
    p.name !== project.name ||
    p.url !== project.url ||
    p.description !== project.description ||
    p.backendLanguage !== project.backend_language ||
    p.backendFramework !== project.backend_framework ||
    p.frontendLanguage !== project.frontend_language ||
    p.frontendFramework !== project.frontend_framework
  ) {
    await sql`UPDATE projects SET name = ${p.name}, url = ${p.url}, description = ${p.description},
      backend_language = ${p.backendLanguage}, backend_framework = ${p.backendFramework},
      frontend_language = ${p.frontendLanguage}, frontend_framework = ${p.frontendFramework}
      WHERE id = ${project.id}`.execute(db);
  }
  for (const member of team) {
    const m = state.team.find((candidate) => candidate.id === member.id);
    if (m === undefined) continue;
    if (m.salutation === member.salutation && m.teamBriefing === member.team_briefing) continue;
    await sql`UPDATE members SET salutation = ${m.salutation}, team_briefing = ${m.teamBriefing}
      WHERE id = ${member.id}`.execute(db);
  }
}

async function down(db: Kysely<unknown>): Promise<void> {
  // The normalized text stays: it is what every earlier release rendered too.
  await sql`DROP INDEX members_project_salutation_skeleton_key`.execute(db);
  await db.schema.alterTable("members").dropColumn("salutation_skeleton").execute();
}

export const salutationSkeletons: Migration = { up, down };
