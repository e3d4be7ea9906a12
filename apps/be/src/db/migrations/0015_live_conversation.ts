import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// Written against `Kysely<unknown>`: the schema as it was at the time (see 0001).

/**
 * One live conversation per project (issue 52).
 *
 * - Every event of a project (its turns' events, and roster changes in `project_events`) gets
 *   the project's next number, `project_seq`, from `projects.event_seq`. A trigger takes it by
 *   updating the project's row, which locks that row until the inserting transaction ends: the
 *   events of one project therefore commit in the order of their numbers, and a reader that
 *   resumes after number N (an SSE `Last-Event-ID`) can never miss one that commits later with
 *   a smaller number. The trigger also announces the project on `talkide_project_events`, so
 *   every instance's open project streams read again at commit.
 * - Events stored before this migration are numbered in the order they were written.
 * - A turn can end `stopped` (a member stopped it); `stopped_by` names who.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("projects")
    .addColumn("event_seq", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("turn_events").addColumn("project_seq", "bigint").execute();
  await sql`
    UPDATE turn_events SET project_seq = numbered.n
    FROM (
      SELECT e.turn_id, e.seq,
             row_number() OVER (PARTITION BY t.project_id ORDER BY e.created_at, t.number, e.seq) AS n
      FROM turn_events e JOIN turns t ON t.id = e.turn_id
    ) AS numbered
    WHERE turn_events.turn_id = numbered.turn_id AND turn_events.seq = numbered.seq`.execute(db);
  await sql`
    UPDATE projects SET event_seq = COALESCE(
      (SELECT MAX(e.project_seq) FROM turn_events e JOIN turns t ON t.id = e.turn_id
       WHERE t.project_id = projects.id), 0)`.execute(db);

  await db.schema
    .createTable("project_events")
    .addColumn("project_id", "integer", (c) =>
      c.notNull().references("projects.id").onDelete("cascade"),
    )
    .addColumn("project_seq", "bigint", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint("project_events_pkey", ["project_id", "project_seq"])
    .execute();

  await sql`
    CREATE FUNCTION talkide_turn_event_number() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      owner integer;
    BEGIN
      SELECT project_id INTO owner FROM turns WHERE id = NEW.turn_id;
      UPDATE projects SET event_seq = event_seq + 1 WHERE id = owner
        RETURNING event_seq INTO NEW.project_seq;
      PERFORM pg_notify('talkide_project_events', owner::text);
      RETURN NEW;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER turn_events_project_seq BEFORE INSERT ON turn_events
    FOR EACH ROW EXECUTE FUNCTION talkide_turn_event_number()`.execute(db);
  await sql`
    CREATE FUNCTION talkide_project_event_number() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE projects SET event_seq = event_seq + 1 WHERE id = NEW.project_id
        RETURNING event_seq INTO NEW.project_seq;
      PERFORM pg_notify('talkide_project_events', NEW.project_id::text);
      RETURN NEW;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER project_events_project_seq BEFORE INSERT ON project_events
    FOR EACH ROW EXECUTE FUNCTION talkide_project_event_number()`.execute(db);
  await sql`CREATE INDEX turn_events_project_seq_idx ON turn_events (project_seq)`.execute(db);

  await sql`ALTER TABLE turns DROP CONSTRAINT turns_status_check`.execute(db);
  await sql`ALTER TABLE turns ADD CONSTRAINT turns_status_check
    CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'stopped'))`.execute(db);
  await db.schema
    .alterTable("turns")
    .addColumn("stopped_by", "uuid", (c) => c.references("members.id"))
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("turns").dropColumn("stopped_by").execute();
  await sql`UPDATE turns SET status = 'failed' WHERE status = 'stopped'`.execute(db);
  await sql`ALTER TABLE turns DROP CONSTRAINT turns_status_check`.execute(db);
  await sql`ALTER TABLE turns ADD CONSTRAINT turns_status_check
    CHECK (status IN ('queued', 'running', 'succeeded', 'failed'))`.execute(db);
  await sql`DROP TRIGGER project_events_project_seq ON project_events`.execute(db);
  await sql`DROP FUNCTION talkide_project_event_number()`.execute(db);
  await sql`DROP TRIGGER turn_events_project_seq ON turn_events`.execute(db);
  await sql`DROP FUNCTION talkide_turn_event_number()`.execute(db);
  await db.schema.dropTable("project_events").execute();
  await db.schema.alterTable("turn_events").dropColumn("project_seq").execute();
  await db.schema.alterTable("projects").dropColumn("event_seq").execute();
}

export const liveConversation: Migration = { up, down };
