import type { Kysely } from "kysely";
import { Migrator, type Migration, type MigrationProvider } from "kysely/migration";
import type { DatabaseSchema } from "./schema.ts";
import { initialSchema } from "./migrations/0001_initial.ts";
import { sessionPinning } from "./migrations/0002_session_pinning.ts";
import { workspaceInstructionFiles } from "./migrations/0003_workspace_instruction_files.ts";
import { denseProjectIds } from "./migrations/0004_dense_project_ids.ts";
import { sessionTranscripts } from "./migrations/0005_session_transcripts.ts";
import { turnProcess } from "./migrations/0006_turn_process.ts";
import { transcriptParts } from "./migrations/0007_transcript_parts.ts";
import { signInCodes } from "./migrations/0008_sign_in_codes.ts";
import { salutationSkeletons } from "./migrations/0009_salutation_skeletons.ts";
import { turnDemoModel } from "./migrations/0010_turn_demo_model.ts";

/** Every migration, in order. Both database kinds run exactly this list. */
const MIGRATIONS: Record<string, Migration> = {
  "0001_initial": initialSchema,
  "0002_session_pinning": sessionPinning,
  "0003_workspace_instruction_files": workspaceInstructionFiles,
  "0004_dense_project_ids": denseProjectIds,
  "0005_session_transcripts": sessionTranscripts,
  "0006_turn_process": turnProcess,
  "0007_transcript_parts": transcriptParts,
  "0008_sign_in_codes": signInCodes,
  "0009_salutation_skeletons": salutationSkeletons,
  "0010_turn_demo_model": turnDemoModel,
};

/** The list itself, for tests that build an older schema. */
export const MIGRATIONS_FOR_TESTS: Readonly<Record<string, Migration>> = MIGRATIONS;

const provider: MigrationProvider = {
  getMigrations: () => Promise.resolve(MIGRATIONS),
};

export class MigrationError extends Error {
  readonly code = "migration_failed";
  constructor(migration: string | null, cause: unknown) {
    super(
      `Database migration ${migration ?? "(unknown)"} failed: ${
        cause instanceof Error ? cause.message : String(cause)
      }. The database was left at the last migration that succeeded.`,
      { cause },
    );
    this.name = "MigrationError";
  }
}

/** Brings the schema up to date; returns the names of the migrations that ran now. */
export async function migrateToLatest(db: Kysely<DatabaseSchema>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === "Error");
    throw new MigrationError(failed?.migrationName ?? null, error);
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
