/**
 * A database as the release dbd4985 left it (migrations to 0016), for the tests of the
 * migrations after it: its rows, written through its API with the fake CLI, in
 * `fixtures/be-release-rows-dbd4985.json.gz`. Project 1 has an open session of three turns
 * whose transcript is stored in three parts; project 2 an ended session (its first turn) and an
 * open one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { seedPgliteDataDir } from "@talkide/service-kit/testing";
import { sql } from "kysely";
import { openDatabase } from "../db/connect.ts";
import { migrateBefore } from "./earlier-schema.ts";

interface ReleaseRows {
  readonly tables: Record<string, readonly Record<string, unknown>[]>;
}

export const RELEASE: ReleaseRows = JSON.parse(
  gunzipSync(
    readFileSync(new URL("./fixtures/be-release-rows-dbd4985.json.gz", import.meta.url)),
  ).toString("utf8"),
) as ReleaseRows;

/** In the order their references need (after users and projects). */
const TABLES = [
  "members",
  "agent_sessions",
  "turns",
  "agent_session_transcripts",
  "agent_session_transcript_parts",
  "turn_events",
] as const;

/**
 * A database at migration 0016 in `dataDir` holding the release's rows; the projects'
 * workspaces moved under `workspacesDir` when given (a service runs turns in them).
 */
export async function databaseOfTheRelease(dataDir: string, workspacesDir?: string): Promise<void> {
  await seedPgliteDataDir(dataDir);
  const old = await openDatabase({ databaseUrl: null, dataDir });
  try {
    await migrateBefore(old.db, "0017");
    const projects = (RELEASE.tables.projects ?? []).map((project) =>
      workspacesDir === undefined
        ? project
        : { ...project, workspace_dir: join(workspacesDir, `project-${String(project.id)}`) },
    );
    const insert = async (table: string, rows: readonly Record<string, unknown>[]) => {
      await sql`INSERT INTO ${sql.table(table)}
        SELECT * FROM json_populate_recordset(NULL::${sql.table(table)}, ${JSON.stringify(rows)})`.execute(
        old.db,
      );
    };
    await insert("users", RELEASE.tables.users ?? []);
    await insert("projects", projects);
    for (const table of TABLES) await insert(table, RELEASE.tables[table] ?? []);
  } finally {
    await old.close();
  }
}
