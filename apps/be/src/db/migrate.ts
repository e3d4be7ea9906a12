import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { GATEWAY_MIGRATIONS } from "@talkide/gateway";
import { migrateToLatest as migrateServiceDatabase } from "@talkide/service-kit";
import { ENGINE_MIGRATIONS } from "@talkide/turn-engine";
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
import { turnTokenUsage } from "./migrations/0011_turn_token_usage.ts";
import { turnCliFallback } from "./migrations/0012_turn_cli_fallback.ts";
import { accounts } from "./migrations/0013_accounts.ts";
import { liveConversation } from "./migrations/0015_live_conversation.ts";
import { turnGatewayUsage } from "./migrations/0016_turn_gateway_usage.ts";
import { engineSessions } from "./migrations/0017_engine_sessions.ts";
import { engineRuns } from "./migrations/0018_engine_runs.ts";

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
  "0011_turn_token_usage": turnTokenUsage,
  "0012_turn_cli_fallback": turnCliFallback,
  "0013_accounts": accounts,
  "0015_live_conversation": liveConversation,
  "0016_turn_gateway_usage": turnGatewayUsage,
  "0017_engine_sessions": engineSessions,
  "0018_engine_runs": engineRuns,
};

/** The list itself, for tests that build an older schema. */
export const MIGRATIONS_FOR_TESTS: Readonly<Record<string, Migration>> = MIGRATIONS;

/**
 * Brings the schema up to date; returns the names of the migrations that ran now. The
 * backend's own names are recorded as they are (no namespace), as every earlier release
 * recorded them; the turn engine's tables (`engine/…`) come first, since 0017 and 0018 move the
 * backend's sessions and runs into them, and the LLM gateway's from its own folder (`gateway/…`).
 */
export function migrateToLatest(db: Kysely<DatabaseSchema>): Promise<readonly string[]> {
  return migrateServiceDatabase(db, [
    ENGINE_MIGRATIONS,
    { migrations: MIGRATIONS },
    GATEWAY_MIGRATIONS,
  ]);
}
