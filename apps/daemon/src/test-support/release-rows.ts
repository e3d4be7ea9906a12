import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { sql, type Kysely } from "kysely";

/**
 * The rows the release at dbd4985 really wrote (`../db/fixtures`, recorded with the pinned CLI
 * against the fake provider): conversation `c-one` has an open session of three turns whose
 * transcript is its stored content and two parts; `c-two` an ended session and an open one.
 */
interface ReleaseRows {
  readonly migrations: readonly string[];
  readonly tables: Record<string, readonly Record<string, unknown>[]>;
}

export const RELEASE = JSON.parse(
  gunzipSync(
    await readFile(new URL("../db/fixtures/release-dbd4985-rows.json.gz", import.meta.url)),
  ).toString("utf8"),
) as ReleaseRows;

/** A table's rows as the release wrote them (`to_jsonb(row)`). */
export function releaseRows(table: string): readonly Record<string, unknown>[] {
  return RELEASE.tables[table] ?? [];
}

/**
 * Writes the release's rows into a database at its schema (`migrateDaemonBefore(db, "0009")`),
 * its agent's workspace at `workspace` (the recording run's was a temporary folder).
 */
export async function insertReleaseRows<DB>(db: Kysely<DB>, workspace: string): Promise<void> {
  for (const table of [
    "daemon_meta",
    "agents",
    "sessions",
    "deliveries",
    "turns",
    "session_transcripts",
    "session_transcript_parts",
  ]) {
    const rows = (RELEASE.tables[table] ?? []).map((row) =>
      table === "agents" ? { ...row, workspace_dir: workspace } : row,
    );
    // Identity columns (a delivery's `seq`) keep the release's values.
    await sql`INSERT INTO ${sql.table(table)} OVERRIDING SYSTEM VALUE
      SELECT * FROM jsonb_populate_recordset(NULL::${sql.table(table)}, ${JSON.stringify(rows)}::jsonb)`.execute(
      db,
    );
  }
  // The identity's sequence where the release's database had it: after its last delivery.
  await sql`SELECT setval(pg_get_serial_sequence('deliveries', 'seq'), (SELECT max(seq) FROM deliveries))`.execute(
    db,
  );
}
