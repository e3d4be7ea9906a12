/**
 * A project's sessions and its turns' runs as tests see and shape them: through the turn
 * engine's store (no test writes SQL on the engine's tables), the way another instance or an
 * earlier release would have left them.
 */
import { randomUUID } from "node:crypto";
import {
  wholeTurnTranscript,
  type RuntimeTranscript,
  type SessionPoint,
} from "@talkide/claude-cli";
import {
  endSession,
  engineDb,
  listSessions,
  loadTranscript,
  openSession,
  pointOfSession,
  recordSuccess,
  runsOf,
  startSession,
  type RunRow,
  type SessionRow,
} from "@talkide/turn-engine";
import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";
import { projectScope, releasePin } from "../agent/session-pinning.ts";

/** The project's open session; throws when it has none. */
export async function openProjectSession(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<SessionRow> {
  const open = await openSession(engineDb(db), projectScope(projectId).scope);
  if (open === null) throw new Error(`project ${projectId} has no open session`);
  return open;
}

/** Every session of the project, ended ones too, oldest first. */
export async function projectSessions(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<readonly SessionRow[]> {
  const newestFirst = await listSessions(engineDb(db), {
    owner: projectScope(projectId).owner,
    limit: 1000,
  });
  return [...newestFirst].reverse();
}

/**
 * What another instance's successful turn leaves: the session at `point` and, when given, the
 * transcript that instance stored (written whole: this instance's ledger knows nothing of it).
 */
export async function advanceElsewhere(
  db: Kysely<DatabaseSchema>,
  sessionId: string,
  point: SessionPoint,
  transcript: RuntimeTranscript | null = null,
  turnId: string = randomUUID(),
): Promise<void> {
  const anotherInstance = {};
  await recordSuccess(engineDb(db), anotherInstance, {
    sessionId,
    turnId,
    point,
    costUsd: null,
    transcript: transcript === null ? null : wholeTurnTranscript(transcript),
  });
}

/** The session's point and stored transcript now, to put it back there later. */
export async function sessionState(
  db: Kysely<DatabaseSchema>,
  session: SessionRow,
): Promise<{ readonly point: SessionPoint; readonly transcript: RuntimeTranscript | null }> {
  const point = pointOfSession(session);
  if (point === null) throw new Error(`session ${session.id} has not begun`);
  return { point, transcript: await loadTranscript(engineDb(db), session.id) };
}

/**
 * The project's open session as an earlier release of Mara's agent file would have started
 * it, at the same point: the next turn ends it and starts a new one (`agent_changed`).
 */
export async function pinToEarlierRelease(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<void> {
  const open = await openProjectSession(db, projectId);
  const { point, transcript } = await sessionState(db, open);
  const engine = engineDb(db);
  await endSession(engine, open.id, "ended");
  const earlier = await startSession(
    engine,
    projectScope(projectId),
    releasePin({ agentSha256: "0".repeat(64), pluginSha256: "0".repeat(64) }),
  );
  await advanceElsewhere(db, earlier.id, point, transcript);
}

/** Every session the engine stores, of any project, newest first. */
export function allSessions(db: Kysely<DatabaseSchema>): Promise<readonly SessionRow[]> {
  return listSessions(engineDb(db), { limit: 10_000 });
}

/** Every stored session with its transcript, as text: what a test searches for a secret. */
export async function storedSessionsAsText(db: Kysely<DatabaseSchema>): Promise<string[]> {
  return Promise.all(
    (await allSessions(db)).map(async (session) =>
      JSON.stringify({ session, transcript: await loadTranscript(engineDb(db), session.id) }),
    ),
  );
}

/** The engine's record of a turn's run; throws when the turn has none. */
export async function runOfTurn(db: Kysely<DatabaseSchema>, turnId: string): Promise<RunRow> {
  const run = (await runsOf(engineDb(db), [turnId])).get(turnId);
  if (run === undefined) throw new Error(`turn ${turnId} has no run`);
  return run;
}

/** The run of every stored turn, as text: what a test searches for a secret. */
export async function storedRunsAsText(db: Kysely<DatabaseSchema>): Promise<string[]> {
  const turns = await db.selectFrom("turns").select("id").execute();
  const runs = await runsOf(
    engineDb(db),
    turns.map((turn) => turn.id),
  );
  return [...runs.values()].map((run) => JSON.stringify(run));
}
