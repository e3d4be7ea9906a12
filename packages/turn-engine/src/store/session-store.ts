/**
 * Every statement on the engine's tables (`engine_sessions`, `engine_transcripts`,
 * `engine_transcript_parts`), in one module: no host writes SQL on them. A host passes its
 * database or its transaction (`engineDb`); a host that records a turn in one statement adds
 * its own steps to the engine's (`recordSuccess`'s `alongside`).
 */
import { randomUUID } from "node:crypto";
import {
  TranscriptLedger,
  type RuntimeTranscript,
  type SessionPoint,
  type SessionPoints,
  type TurnTranscript,
} from "@talkide/claude-cli";
import { sql, type Kysely, type RawBuilder, type Selectable } from "kysely";
import { runSuccessResult, runSuccessStep, type RunSuccess, type RunTotals } from "./run-store.ts";
import type { HostSteps } from "./host-steps.ts";
import type { EngineSessionsTable, EngineTables } from "./tables.ts";
import { totalAfter } from "./totals.ts";

export type EngineDb = Kysely<EngineTables>;

/** The host's database (or transaction) as the engine's: the engine only touches its tables. */
export function engineDb<DB>(db: Kysely<DB>): EngineDb {
  return db as unknown as EngineDb;
}

export type SessionRow = Selectable<EngineSessionsTable>;

/** What one open session belongs to (see migration `engine/0001-sessions`). */
export interface SessionScope {
  /** The host's key of the one open session (the warm pool's key). */
  readonly scope: string;
  /** What the host lists and deletes sessions by (a project, an agent). */
  readonly owner: string;
  /** The host's conversation, when it keeps one session per conversation. */
  readonly conversation?: string | null | undefined;
}

/** Where the session stands: null while it has not begun (none of its turns succeeded). */
export function pointOfSession(session: SessionRow): SessionPoint | null {
  return session.claude_session_id === null
    ? null
    : { id: session.claude_session_id, at: session.resume_at_message_id };
}

/** The scope's open session, if any. */
export async function openSession(db: EngineDb, scope: string): Promise<SessionRow | null> {
  const row = await db
    .selectFrom("engine_sessions")
    .selectAll()
    .where("scope", "=", scope)
    .where("ended_at", "is", null)
    .executeTakeFirst();
  return row ?? null;
}

/** One session by id, ended or not. */
export async function sessionById(db: EngineDb, id: string): Promise<SessionRow | null> {
  const row = await db
    .selectFrom("engine_sessions")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Opens a session that has not begun, pinned to `pin`. A second open session of one scope is
 * refused by the database (`engine_sessions_one_open_per_scope`).
 */
export async function startSession(
  db: EngineDb,
  scope: SessionScope,
  pin: string | null,
  id: string = randomUUID(),
): Promise<SessionRow> {
  return db
    .insertInto("engine_sessions")
    .values({
      id,
      scope: scope.scope,
      owner: scope.owner,
      conversation: scope.conversation ?? null,
      pin,
      claude_session_id: null,
      resume_at_message_id: null,
      end_reason: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Pins a session that has not begun to what the host runs now: nothing of it exists in the
 * CLI, so it starts afresh with the new release instead of being ended. A begun one keeps its
 * pin (its CLI session keeps the system prompt it started with).
 */
export async function repinSession(db: EngineDb, id: string, pin: string | null): Promise<void> {
  await db
    .updateTable("engine_sessions")
    .set({ pin, updated_at: sql`clock_timestamp()` })
    .where("id", "=", id)
    .where("claude_session_id", "is", null)
    .where("ended_at", "is", null)
    .execute();
}

/** Ends an open session; false when it had already ended (nothing changed). */
export async function endSession(db: EngineDb, id: string, reason: string): Promise<boolean> {
  const ended = await db
    .updateTable("engine_sessions")
    .set({
      ended_at: sql`clock_timestamp()`,
      end_reason: reason,
      updated_at: sql`clock_timestamp()`,
    })
    .where("id", "=", id)
    .where("ended_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  return ended !== undefined;
}

/**
 * Ends every open session of an owner (a reset agent) in one statement; returns the sessions
 * it ended, so that each of them, and no other, is reported.
 */
export async function endSessionsOf(
  db: EngineDb,
  owner: string,
  reason: string,
): Promise<readonly SessionRow[]> {
  return db
    .updateTable("engine_sessions")
    .set({
      ended_at: sql`clock_timestamp()`,
      end_reason: reason,
      updated_at: sql`clock_timestamp()`,
    })
    .where("owner", "=", owner)
    .where("ended_at", "is", null)
    .returningAll()
    .execute();
}

/** Deletes an owner's sessions with their transcripts (a deleted project or agent). */
export async function deleteSessionsOf(db: EngineDb, owner: string): Promise<void> {
  await db.deleteFrom("engine_sessions").where("owner", "=", owner).execute();
}

/** Why the scope's most recently ended session ended; null when none has. */
export async function lastEndReason(db: EngineDb, scope: string): Promise<string | null> {
  const row = await db
    .selectFrom("engine_sessions")
    .select("end_reason")
    .where("scope", "=", scope)
    .where("ended_at", "is not", null)
    .orderBy("ended_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.end_reason ?? null;
}

export interface SessionFilter {
  readonly owner?: string | undefined;
  readonly conversation?: string | undefined;
  readonly ids?: readonly string[] | undefined;
  /** Only open sessions (the default lists ended ones too). */
  readonly openOnly?: boolean | undefined;
  readonly limit: number;
}

/** Newest first. */
export async function listSessions(
  db: EngineDb,
  filter: SessionFilter,
): Promise<readonly SessionRow[]> {
  let query = db.selectFrom("engine_sessions").selectAll();
  if (filter.owner !== undefined) query = query.where("owner", "=", filter.owner);
  if (filter.conversation !== undefined)
    query = query.where("conversation", "=", filter.conversation);
  if (filter.ids !== undefined) {
    if (filter.ids.length === 0) return [];
    query = query.where("id", "in", [...filter.ids]);
  }
  if (filter.openOnly === true) query = query.where("ended_at", "is", null);
  return query.orderBy("created_at", "desc").orderBy("id").limit(filter.limit).execute();
}

/**
 * Where each scope's open, begun session stands now, by scope: the warm pool ends a kept
 * process whose session moved on (`WarmProcessPool#pruneMoved`).
 */
export async function sessionPoints(
  db: EngineDb,
  scopes: readonly string[],
): Promise<SessionPoints> {
  if (scopes.length === 0) return new Map();
  const rows = await db
    .selectFrom("engine_sessions")
    .select(["scope", "claude_session_id", "resume_at_message_id"])
    .where("scope", "in", [...scopes])
    .where("ended_at", "is", null)
    .where("claude_session_id", "is not", null)
    .execute();
  return new Map(
    rows.map((row) => [
      row.scope,
      { id: row.claude_session_id ?? "", at: row.resume_at_message_id },
    ]),
  );
}

/** A successful turn, as the engine stores it. */
export interface SessionSuccess {
  readonly sessionId: string;
  readonly turnId: string;
  /** Where the session resumes next: the CLI's session and the turn's last message. */
  readonly point: SessionPoint;
  readonly costUsd: number | null;
  /** The CLI's transcript after the turn (null: none was found; the stored one stays). */
  readonly transcript: TurnTranscript | null;
  /** The turn's run, ended as succeeded in the same statement (see run-store.ts). */
  readonly run?: RunSuccess | undefined;
}

/** What a success statement returns: the session's total after the turn, and the host's part. */
export interface SuccessRecorded {
  readonly total: number | null;
  /** The value of the host's `result` (null without one). */
  readonly host: unknown;
  /** The session's totals as the run's row holds them (null without `run`, or no running run). */
  readonly run: RunTotals | null;
}

/**
 * Records a successful turn in one statement: the session begun or advanced to `point` and
 * charged the turn's cost, its transcript stored, and the host's steps beside them. One
 * statement is one atomic step (no session point without its transcript) and one round trip.
 *
 * When this process stored the session's previous transcript and the CLI only appended to it
 * (`TranscriptLedger`), the statement carries just the new lines, and changes nothing unless
 * the stored transcript is still the one this process wrote last; when it is not, the whole
 * transcript is written instead.
 */
export async function recordSuccess(
  db: EngineDb,
  ledgerOwner: object,
  success: SessionSuccess,
  alongside?: HostSteps,
): Promise<SuccessRecorded> {
  const { transcript } = success;
  if (transcript === null) return recordWhole(db, success, alongside);
  const ledger = TranscriptLedger.of(ledgerOwner);
  const plan = ledger.plan(success.sessionId, transcript);
  const appended =
    plan.append === null ? null : await recordAppended(db, success, plan.append, alongside);
  const stored = appended ?? (await recordWhole(db, success, alongside));
  ledger.stored(success.sessionId, success.turnId, plan, appended !== null);
  return stored;
}

function successSteps(
  success: SessionSuccess,
  when: RawBuilder<unknown>,
  alongside: HostSteps | undefined,
): RawBuilder<unknown> {
  const advanced = sql`advanced_session AS (
      UPDATE engine_sessions
         SET claude_session_id = ${success.point.id}, resume_at_message_id = ${success.point.at}::text,
             cumulative_cost_usd = ${totalAfter(sql.ref("cumulative_cost_usd"), success.costUsd)},
             turn_count = turn_count + 1, updated_at = clock_timestamp()
       WHERE id = ${success.sessionId} ${when}
      RETURNING cumulative_cost_usd)`;
  const run =
    success.run === undefined
      ? advanced
      : sql`${advanced}, ${runSuccessStep(success.turnId, success.sessionId, success.point.id, success.run, when)}`;
  return alongside === undefined ? run : sql`${run}, ${alongside.steps(when)}`;
}

/** The whole statement: the transcript (when there is one) replaces the stored one and its parts. */
async function recordWhole(
  db: EngineDb,
  success: SessionSuccess,
  alongside: HostSteps | undefined,
): Promise<SuccessRecorded> {
  const content = success.transcript?.whole().content ?? null;
  const { rows } = await sql<{ total: number | null; host: unknown; run: unknown }>`
    WITH ${successSteps(success, sql``, alongside)},
    stored_transcript AS (
      INSERT INTO engine_transcripts (session_id, claude_session_id, project_dir, turn_id)
      SELECT ${success.sessionId}, ${success.point.id}, ${success.transcript?.projectDir ?? null}::text,
             ${success.turnId}
       WHERE ${content}::text IS NOT NULL
      ON CONFLICT (session_id) DO UPDATE
         SET claude_session_id = excluded.claude_session_id, project_dir = excluded.project_dir,
             turn_id = excluded.turn_id, updated_at = clock_timestamp()
      RETURNING session_id),
    dropped_parts AS (
      DELETE FROM engine_transcript_parts
       WHERE session_id = ${success.sessionId} AND ${content}::text IS NOT NULL),
    -- Numbered after the parts it replaces: one statement cannot delete a key and insert it again.
    stored_part AS (
      INSERT INTO engine_transcript_parts (session_id, seq, content, turn_id)
      SELECT session_id,
             COALESCE((SELECT max(p.seq) FROM engine_transcript_parts p
                        WHERE p.session_id = ${success.sessionId}), 0) + 1,
             ${content}::text, ${success.turnId}
        FROM stored_transcript)
    SELECT (SELECT cumulative_cost_usd FROM advanced_session) AS total,
           ${hostResult(alongside)} AS host, ${runResult(success)} AS run`.execute(db);
  return recorded(rows[0]);
}

/**
 * The same with the transcript's new lines appended as a part, all of it only if the stored
 * transcript is still the one `afterTurnId` wrote (locked for the statement). Null when it is
 * not: then nothing changed.
 */
async function recordAppended(
  db: EngineDb,
  success: SessionSuccess,
  append: { readonly afterTurnId: string; readonly delta: string },
  alongside: HostSteps | undefined,
): Promise<SuccessRecorded | null> {
  const { rows } = await sql<{
    appended: boolean;
    total: number | null;
    host: unknown;
    run: unknown;
  }>`
    WITH previous AS (
      SELECT session_id FROM engine_transcripts
       WHERE session_id = ${success.sessionId} AND turn_id = ${append.afterTurnId}
         AND claude_session_id = ${success.point.id}
         AND project_dir = ${success.transcript?.projectDir ?? null}::text
      FOR UPDATE),
    ${successSteps(success, sql`AND EXISTS (SELECT 1 FROM previous)`, alongside)},
    stored_part AS (
      INSERT INTO engine_transcript_parts (session_id, seq, content, turn_id)
      SELECT previous.session_id,
             COALESCE((SELECT max(p.seq) FROM engine_transcript_parts p
                        WHERE p.session_id = previous.session_id), 0) + 1,
             ${append.delta}::text, ${success.turnId}
        FROM previous
       WHERE ${append.delta}::text <> ''
      RETURNING seq),
    moved_transcript AS (
      UPDATE engine_transcripts
         SET turn_id = ${success.turnId}, updated_at = clock_timestamp()
       WHERE session_id = ${success.sessionId} AND EXISTS (SELECT 1 FROM previous)
      RETURNING session_id)
    SELECT EXISTS (SELECT 1 FROM previous) AS appended,
           (SELECT cumulative_cost_usd FROM advanced_session) AS total,
           ${hostResult(alongside)} AS host, ${runResult(success)} AS run`.execute(db);
  const row = rows[0];
  return row?.appended === true ? recorded(row) : null;
}

function hostResult(alongside: HostSteps | undefined): RawBuilder<unknown> {
  return alongside?.result ?? sql`NULL`;
}

function runResult(success: SessionSuccess): RawBuilder<unknown> {
  return success.run === undefined ? sql`NULL::jsonb` : runSuccessResult;
}

/** The statement's row as its result; a driver may hand jsonb back as text, bigint as a string. */
function recorded(
  row: { total: number | null; host: unknown; run: unknown } | undefined,
): SuccessRecorded {
  const run = typeof row?.run === "string" ? (JSON.parse(row.run) as unknown) : row?.run;
  const totals = (run ?? null) as Record<keyof RunTotals, string | number | null> | null;
  const number = (value: string | number | null | undefined) =>
    value === null || value === undefined ? null : Number(value);
  return {
    total: row?.total ?? null,
    host: row?.host ?? null,
    run:
      totals === null
        ? null
        : {
            sessionInputTokens: number(totals.sessionInputTokens),
            sessionCacheReadTokens: number(totals.sessionCacheReadTokens),
            cumulativeCostUsd: number(totals.cumulativeCostUsd),
          },
  };
}

/** The stored transcript of a session, whole (its parts joined); null when none is stored. */
export async function loadTranscript(
  db: EngineDb,
  sessionId: string,
): Promise<RuntimeTranscript | null> {
  const { rows } = await sql<{ claude_session_id: string; project_dir: string; content: string }>`
    SELECT t.claude_session_id, t.project_dir,
           COALESCE((SELECT string_agg(p.content, '' ORDER BY p.seq) FROM engine_transcript_parts p
                      WHERE p.session_id = t.session_id), '') AS content
      FROM engine_transcripts t WHERE t.session_id = ${sessionId}`.execute(db);
  const stored = rows[0];
  if (stored === undefined) return null;
  return {
    sessionId: stored.claude_session_id,
    projectDir: stored.project_dir,
    content: stored.content,
  };
}

/** A stored transcript's parts in order: what each turn wrote (the whole, or the lines it added). */
export async function transcriptParts(
  db: EngineDb,
  sessionId: string,
): Promise<readonly { readonly content: string; readonly turnId: string }[]> {
  const rows = await db
    .selectFrom("engine_transcript_parts")
    .select(["content", "turn_id"])
    .where("session_id", "=", sessionId)
    .orderBy("seq")
    .execute();
  return rows.map((row) => ({ content: row.content, turnId: row.turn_id }));
}
