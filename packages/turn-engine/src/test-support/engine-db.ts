import { wholeTurnTranscript, type RuntimeTranscript } from "@talkide/claude-cli";
import { migrateToLatest, openDatabase } from "@talkide/service-kit";
import { makeTempDir, removeDir, type Backend } from "@talkide/service-kit/testing";
import { afterAll, afterEach, beforeAll } from "vitest";
import { ENGINE_MIGRATIONS } from "../store/migrations.ts";
import {
  engineDb,
  recordSuccess,
  startSession,
  type EngineDb,
  type SessionRow,
} from "../store/session-store.ts";

export interface EngineTestDb {
  readonly db: EngineDb;
  close(): Promise<void>;
}

/** The engine's tables in an embedded database of their own (or a server's, given its URL). */
export async function openEngineTestDb(
  databaseUrl: string | null = null,
  prefix = "talkide-engine-db-",
): Promise<EngineTestDb> {
  const dir = await makeTempDir(prefix);
  const database = await openDatabase<unknown>({ databaseUrl, dataDir: dir });
  await migrateToLatest(database.db, [ENGINE_MIGRATIONS]);
  return {
    db: engineDb(database.db),
    close: async () => {
      await database.close();
      await removeDir(dir);
    },
  };
}

/**
 * Registers a suite's hooks for `backend` (set up before, torn down after, every database
 * opened by a test closed after it) and returns the function that opens a fresh database with
 * the engine's tables.
 */
export function freshEngineDbs(backend: Backend, prefix: string): () => Promise<EngineDb> {
  const opened: EngineTestDb[] = [];
  beforeAll(async () => {
    if (backend.available) await backend.setup();
  });
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close();
  });
  afterAll(async () => {
    if (backend.available) await backend.teardown();
  });
  return async () => {
    const database = await openEngineTestDb(await backend.newDatabase(), prefix);
    opened.push(database);
    return database.db;
  };
}

/**
 * A session of `scope` as a host leaves it: begun by a successful turn in the CLI's session
 * `claudeSessionId` (with `transcript` stored, when given), or not begun when that is null.
 */
export async function seedSession(
  db: EngineDb,
  scope: string,
  pin: string | null,
  claudeSessionId: string | null,
  transcript?: RuntimeTranscript,
): Promise<SessionRow> {
  const session = await startSession(db, { scope, owner: scope }, pin);
  if (claudeSessionId === null) return session;
  await recordSuccess(
    db,
    {},
    {
      sessionId: session.id,
      turnId: `seed-${session.id}`,
      point: { id: claudeSessionId, at: null },
      costUsd: null,
      transcript: transcript === undefined ? null : wholeTurnTranscript(transcript),
    },
  );
  return { ...session, claude_session_id: claudeSessionId };
}
