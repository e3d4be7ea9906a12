import {
  recognizeStoredEvent,
  type CacheMiss,
  type StoredTurnEvent,
  type TurnEvent,
  type TurnRecord,
} from "@talkide/be-api";
import { sessionCacheReuseOf, usageFromColumns } from "@talkide/turn-engine";
import type { Kysely, Selectable } from "kysely";
import { sql } from "kysely";
import type { CacheMissColumn, DatabaseSchema, TurnsTable } from "../db/schema.ts";
import { toRfc3339, toRfc3339OrNull } from "../db/timestamps.ts";
import { notFound } from "../errors.ts";

export type TurnRow = Selectable<TurnsTable>;

/** A turn's record as the API shows it: the shape is `@talkide/be-api`'s TurnRecord. */
export type TurnView = TurnRecord;

export function turnView(row: TurnRow): TurnView {
  return {
    id: row.id,
    projectId: row.project_id,
    number: row.number,
    memberId: row.member_id,
    status: row.status,
    resumed: row.resumed,
    sessionId: row.claude_session_id,
    sessionReset: row.session_reset,
    message: row.prompt,
    resultText: row.result_text,
    error:
      row.error_code === null
        ? null
        : { code: row.error_code, message: row.error_message ?? row.error_code },
    costUsd: row.cost_usd,
    cumulativeCostUsd: row.cumulative_cost_usd,
    demoModel: row.demo_model,
    usage: usageView(row),
    cacheMiss: row.cache_miss === null ? null : cacheMissView(row.cache_miss),
    sessionCacheReuse: sessionCacheReuseOf(row),
    cliFallback: row.cli_fallback,
    workspaceInstructionFiles:
      row.workspace_instruction_files === null
        ? []
        : (JSON.parse(row.workspace_instruction_files) as string[]),
    process: row.process,
    coldReason: row.cold_reason,
    createdAt: toRfc3339(row.created_at),
    startedAt: toRfc3339OrNull(row.started_at),
    finishedAt: toRfc3339OrNull(row.finished_at),
  };
}

/** The turn's tokens: the gateway's (with the cache writes by lifetime), or an older turn's CLI figures. */
function usageView(row: TurnRow): TurnRecord["usage"] {
  const usage = usageFromColumns(row);
  if (usage === null || row.cache_write_5m_tokens === null || row.cache_write_1h_tokens === null)
    return usage;
  return {
    ...usage,
    cacheCreation5mInputTokens: row.cache_write_5m_tokens,
    cacheCreation1hInputTokens: row.cache_write_1h_tokens,
  };
}

/** `turns.cache_miss` as the API shows it (a driver may hand jsonb back as text). */
export function cacheMissView(column: CacheMissColumn | string): CacheMiss {
  const value = (typeof column === "string" ? JSON.parse(column) : column) as CacheMissColumn;
  return {
    reason: value.reason as CacheMiss["reason"],
    phrase: value.phrase,
    position:
      value.position === null
        ? null
        : {
            section: value.position.section as "tools" | "system" | "messages",
            index: value.position.index,
            block: value.position.block,
            offset: value.position.offset,
          },
    gapMs: value.gapMs,
    ttlMs: value.ttlMs,
  };
}

/**
 * Inserts a queued turn with the project's next turn number, and its first event
 * (`turn.queued`, at `position` in the project's queue). Two statements, in the caller's
 * transaction (the turn queue's enqueue): the event's numbering trigger (migration 0015) reads
 * the turn's project, which a statement cannot see of a row its sibling inserts.
 */
export async function insertQueuedTurn(
  db: Kysely<DatabaseSchema>,
  options: { projectId: number; memberId: string; prompt: string; position: number },
): Promise<TurnRow> {
  const turn = await db
    .insertInto("turns")
    .values({
      project_id: options.projectId,
      member_id: options.memberId,
      prompt: options.prompt,
      status: "queued",
      number: sql<number>`(SELECT COALESCE(MAX(number), 0) + 1 FROM turns WHERE project_id = ${options.projectId})`,
      error_code: null,
      error_message: null,
      result_text: null,
      cost_usd: null,
      cumulative_cost_usd: null,
      agent_session_id: null,
      claude_session_id: null,
      session_reset: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await db
    .insertInto("turn_events")
    .values({
      turn_id: turn.id,
      seq: 1,
      type: "turn.queued",
      data: JSON.stringify({ turnId: turn.id, number: turn.number, position: options.position }),
    })
    .execute();
  return turn;
}

/** The first event of a turn `insertQueuedTurn` wrote, as the stream sends it. */
export function queuedEvent(row: TurnRow, position: number): TurnEvent {
  return { seq: 1, type: "turn.queued", data: { turnId: row.id, number: row.number, position } };
}

export async function listTurns(
  db: Kysely<DatabaseSchema>,
  projectId: number,
  options: { limit: number; beforeNumber?: number | undefined },
): Promise<TurnView[]> {
  let query = db
    .selectFrom("turns")
    .selectAll()
    .where("project_id", "=", projectId)
    .orderBy("number", "desc")
    .limit(options.limit);
  if (options.beforeNumber !== undefined) query = query.where("number", "<", options.beforeNumber);
  return (await query.execute()).map(turnView);
}

export async function getTurn(
  db: Kysely<DatabaseSchema>,
  projectId: number,
  turnId: string,
): Promise<TurnRow> {
  // Ids are uuids; anything else cannot name a turn, and must not reach a uuid cast.
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(turnId)) {
    throw notFound("turn_not_found", "Turn");
  }
  const row = await db
    .selectFrom("turns")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("id", "=", turnId)
    .executeTakeFirst();
  if (row === undefined) throw notFound("turn_not_found", "Turn");
  return row;
}

/**
 * A turn's stored events in order, each checked against the event contract; one an older
 * release wrote in another shape, or under a name this release does not know, is kept as
 * stored (see recognizeStoredEvent), so an old database streams what it always streamed.
 */
export async function loadTurnEvents(
  db: Kysely<DatabaseSchema>,
  turnId: string,
): Promise<StoredTurnEvent[]> {
  const rows = await db
    .selectFrom("turn_events")
    .select(["seq", "type", "data"])
    .where("turn_id", "=", turnId)
    .orderBy("seq")
    .execute();
  return rows.map(recognizeStoredEvent);
}
