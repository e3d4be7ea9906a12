import {
  recognizeStoredEvent,
  type CacheMiss,
  type CliFallback,
  type StoredTurnEvent,
  type TurnEvent,
  type TurnRecord,
} from "@talkide/be-api";
import {
  engineDb,
  runsOf,
  sessionCacheReuseOf,
  usageFromColumns,
  type RunRow,
} from "@talkide/turn-engine";
import type { Kysely, Selectable } from "kysely";
import { sql } from "kysely";
import type { DatabaseSchema, TurnsTable } from "../db/schema.ts";
import { toRfc3339, toRfc3339OrNull } from "../db/timestamps.ts";
import { notFound } from "../errors.ts";

export type TurnRow = Selectable<TurnsTable>;

/** A turn's record as the API shows it: the shape is `@talkide/be-api`'s TurnRecord. */
export type TurnView = TurnRecord;

/**
 * A turn's record: the backend's row and the engine's run of it (none while it is queued, or
 * claimed but not yet started).
 */
export function turnView(row: TurnRow, run?: RunRow): TurnView {
  return {
    id: row.id,
    projectId: row.project_id,
    number: row.number,
    memberId: row.member_id,
    status: row.status,
    // A turn has said it resumed its session once it succeeded in it, never before.
    resumed: row.status === "succeeded" && run?.resumed === true,
    sessionId: run?.claude_session_id ?? null,
    sessionReset: row.session_reset,
    message: row.prompt,
    resultText: row.result_text,
    error:
      row.error_code === null
        ? null
        : { code: row.error_code, message: row.error_message ?? row.error_code },
    costUsd: run?.cost_usd ?? null,
    cumulativeCostUsd: run?.cumulative_cost_usd ?? null,
    demoModel: row.demo_model,
    usage: run === undefined ? null : usageView(run),
    cacheMiss:
      run === undefined || run.cache_miss === null
        ? null
        : cacheMissView(run.cache_miss as StoredCacheMiss, run.cache_miss_phrase),
    sessionCacheReuse: run === undefined ? null : sessionCacheReuseOf(run),
    // The backend stores no other value (outcome-store.ts).
    cliFallback: (run?.cli_fallback ?? null) as CliFallback | null,
    workspaceInstructionFiles:
      row.workspace_instruction_files === null
        ? []
        : (JSON.parse(row.workspace_instruction_files) as string[]),
    process: run?.process ?? null,
    coldReason: run?.cold_reason ?? null,
    createdAt: toRfc3339(row.created_at),
    startedAt: toRfc3339OrNull(row.started_at),
    finishedAt: toRfc3339OrNull(row.finished_at),
  };
}

/**
 * The records of these turns, in their order, each with its run. A queued turn shows none: one
 * its own message started may have begun its run a moment before its row says it is running.
 */
export async function turnViews(
  db: Kysely<DatabaseSchema>,
  rows: readonly TurnRow[],
): Promise<TurnView[]> {
  const ran = rows.filter((row) => row.status !== "queued");
  const runs = await runsOf(
    engineDb(db),
    ran.map((row) => row.id),
  );
  return rows.map((row) => turnView(row, row.status === "queued" ? undefined : runs.get(row.id)));
}

/** One turn's record, with its run. */
export async function turnViewOf(db: Kysely<DatabaseSchema>, row: TurnRow): Promise<TurnView> {
  const [view] = await turnViews(db, [row]);
  return view ?? turnView(row);
}

/** The run's tokens: the gateway's (with the cache writes by lifetime), or an older run's CLI figures. */
function usageView(run: RunRow): TurnRecord["usage"] {
  const usage = usageFromColumns(run);
  if (usage === null || run.cache_write_5m_tokens === null || run.cache_write_1h_tokens === null)
    return usage;
  return {
    ...usage,
    cacheCreation5mInputTokens: run.cache_write_5m_tokens,
    cacheCreation1hInputTokens: run.cache_write_1h_tokens,
  };
}

/** The gateway's explanation of a turn's first cache miss, as its run stores it. */
export interface StoredCacheMiss {
  readonly reason: string;
  readonly position: {
    readonly section: string;
    readonly index: number;
    readonly block: number | null;
    readonly offset: number;
  } | null;
  readonly gapMs: number | null;
  readonly ttlMs: number | null;
}

/** A run's cache line as the API shows it: the gateway's explanation with the backend's phrase. */
export function cacheMissView(miss: StoredCacheMiss, phrase: string | null): CacheMiss {
  return {
    reason: miss.reason as CacheMiss["reason"],
    phrase,
    position:
      miss.position === null
        ? null
        : {
            section: miss.position.section as "tools" | "system" | "messages",
            index: miss.position.index,
            block: miss.position.block,
            offset: miss.position.offset,
          },
    gapMs: miss.gapMs,
    ttlMs: miss.ttlMs,
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
  return turnViews(db, await query.execute());
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
