import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

// A turn records the instruction files found inside its workspace before the spawn (contract
// section 6: reported, never silently loaded). JSON array of workspace-relative paths; null
// for turns that never reached the check (queued, failed before, or older than this column).

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("turns").addColumn("workspace_instruction_files", "text").execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("turns").dropColumn("workspace_instruction_files").execute();
}

export const workspaceInstructionFiles: Migration = { up, down };
