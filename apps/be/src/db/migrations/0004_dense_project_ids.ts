import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Project ids come from `nextProjectId` (domain/projects.ts) from now on: the lowest id in
// 1..999 no project holds. A sequence hands out ids that are never given back: PostgreSQL
// logs a sequence 32 values ahead, so every crash (kill -9, power loss) skipped up to 32 ids,
// and a rolled-back creation burnt one, of only 999 the port rule allows.

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE projects ALTER COLUMN id DROP DEFAULT`.execute(db);
  await sql`DROP SEQUENCE project_id_seq`.execute(db);
}

async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE SEQUENCE project_id_seq AS integer START WITH 1 MINVALUE 1 MAXVALUE 999 NO CYCLE OWNED BY projects.id`.execute(
    db,
  );
  await sql`SELECT setval('project_id_seq', COALESCE((SELECT max(id) FROM projects), 1), (SELECT count(*) > 0 FROM projects))`.execute(
    db,
  );
  await sql`ALTER TABLE projects ALTER COLUMN id SET DEFAULT nextval('project_id_seq')`.execute(db);
}

export const denseProjectIds: Migration = { up, down };
