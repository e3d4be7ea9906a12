import { killLeftoverProcesses, TURN_MARKER_VARIABLES } from "@talkide/claude-cli";
import {
  ABANDONED_CODE,
  type AbandonedJob,
  QUEUE_POLICY,
  type QueueConnection,
  WorkQueue,
} from "@talkide/work-queue";
import { engineDb, finishRun, processMarkersOf } from "@talkide/turn-engine";
import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";
import type { DatabaseSchema } from "../db/schema.ts";
import { projectKey } from "./project-key.ts";
import { appendTerminalEvent } from "./turn-event-store.ts";

/** What a turn's job carries: the turn row holds everything else. */
export interface TurnJob {
  readonly turnId: string;
}

/** One queue for every project's turns; the key is the project, so turns of one project are FIFO. */
const TURN_QUEUE = "be-turns";

export function projectLane(projectId: number): string {
  return `project:${projectId}`;
}

/** What an abandoned turn's record says, by why its job was abandoned (the code: the queue's). */
const ABANDONED_MESSAGE: Record<AbandonedJob<TurnJob>["reason"], string> = {
  lease_expired:
    "The service instance running this turn stopped answering (its lease expired); send the message again.",
  owner_restarted: "The service stopped while this turn was running; send the message again.",
  handler_failed: "The turn failed inside the service; see the service log.",
};

export function openTurnQueue(options: {
  db: Kysely<DatabaseSchema>;
  connection: QueueConnection;
  leaseSeconds: number;
  turnTimeoutMs: number;
  /** Turns of one owner's projects that may run at once (see ownerTurnLimit); unset: no limit. */
  turnsPerOwner?: number;
}): Promise<WorkQueue<TurnJob>> {
  return WorkQueue.open<TurnJob>({
    connection: options.connection,
    kysely: options.db as unknown as Kysely<never>,
    queue: TURN_QUEUE,
    leaseSeconds: options.leaseSeconds,
    jobTimeoutMs: options.turnTimeoutMs,
    ...(options.turnsPerOwner === undefined ? {} : { groupConcurrency: options.turnsPerOwner }),
  });
}

/**
 * How many of an instance's turn slots ({@link QUEUE_POLICY}.concurrency) the projects of one
 * owner may hold at once, for a share in percent: at least one, at most all of them. With the
 * default 50% and 8 slots, one owner's turns take at most 4 and the others' turns start while
 * they run (issue 49, finding 4).
 */
export function ownerTurnLimit(sharePercent: number): number {
  return Math.max(
    1,
    Math.min(QUEUE_POLICY.concurrency, Math.floor((QUEUE_POLICY.concurrency * sharePercent) / 100)),
  );
}

/** The queue group of a project's turns: its owner (the earliest, if it has several). */
export async function ownerGroupOf(
  db: Kysely<DatabaseSchema>,
  projectId: number,
): Promise<string | undefined> {
  const owner = await db
    .selectFrom("members")
    .select("user_id")
    .where("project_id", "=", projectId)
    .where("role", "=", "owner")
    .orderBy("created_at")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  return owner === undefined ? undefined : `owner:${owner.user_id}`;
}

/**
 * Records a turn whose job was abandoned (its instance died, or the handler threw) as failed,
 * with its terminal event, unless it already finished, and ends its processes on this machine
 * (they carry the turn's id in their environment). Idempotent: instances may race on one job.
 */
export async function failAbandonedTurn(
  db: Kysely<DatabaseSchema>,
  logger: Logger,
  job: AbandonedJob<TurnJob>,
): Promise<void> {
  const { turnId } = job.data;
  const failed = await recordTurnFailure(
    db,
    turnId,
    ABANDONED_CODE[job.reason],
    ABANDONED_MESSAGE[job.reason],
  );
  const leftovers = await killLeftoverProcesses(
    TURN_MARKER_VARIABLES,
    // The engine's record of its run has the marker of its process.
    await processMarkersOf(engineDb(db), [turnId]),
  );
  if (!leftovers.supported) {
    logger.warn("cannot look for processes of abandoned turns on this system (no /proc)");
  }
  logger.warn(
    { turnId, reason: job.reason, recorded: failed, killedProcesses: leftovers.killed.length },
    "failed an abandoned turn and ended their processes on this machine",
  );
}

/**
 * Records a queued or running turn as failed together with its terminal `turn.failed` event
 * (announced at commit), so that a finished turn always has one: streams rely on it. Its run
 * ends failed with the same code and message and what its requests cost, charged to no session
 * (a turn still queued gets a run that never started: the engine's record of what it cost,
 * nothing). Does nothing (false) when the turn already finished.
 */
async function recordTurnFailure(
  db: Kysely<DatabaseSchema>,
  turnId: string,
  code: string,
  message: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("turns")
      .set({
        status: "failed",
        error_code: code,
        error_message: message,
        finished_at: sql<string>`clock_timestamp()`,
      })
      .where("id", "=", turnId)
      .where("status", "in", ["queued", "running"])
      // Stamped by the instance that started running the turn (false when none did).
      .returning([
        "project_id",
        "demo_model",
        // What its requests cost, as the LLM gateway of whichever instance ran it recorded them.
        sql<number>`(SELECT COALESCE(SUM(g.cost_usd), 0)::float8 FROM gateway_requests g
                     WHERE g.turn_id = ${turnId})`.as("cost_usd"),
      ])
      .executeTakeFirst();
    if (row === undefined) return false;
    await finishRun(engineDb(trx), {
      turnId,
      owner: projectKey(row.project_id),
      outcome: "failed",
      failure: { code, message },
      figures: {
        costUsd: row.cost_usd,
        usage: null,
        cacheWrite5mTokens: null,
        cacheWrite1hTokens: null,
        cacheMiss: null,
        cacheMissPhrase: null,
      },
    });
    await appendTerminalEvent(trx, turnId, "turn.failed", {
      turnId,
      code,
      message,
      sessionId: null,
      costUsd: row.cost_usd,
      demoModel: row.demo_model,
    });
    return true;
  });
}

/**
 * Turns left queued or running with no job behind them (written by a release before the queue)
 * can never finish: they fail at start. A turn with a job is left to the queue and its lease.
 *
 * The open turns are read before the jobs: a turn and its job commit together, and a job
 * finishes only after its turn was settled, so a turn another instance enqueues meanwhile is
 * either not read at all or read together with its job. (The other order could take a just
 * enqueued turn for an orphan; one that started at its enqueue is never claimed, see
 * StartedHere.)
 */
export async function failTurnsWithoutJob(
  db: Kysely<DatabaseSchema>,
  queue: WorkQueue<TurnJob>,
): Promise<string[]> {
  const open = await db
    .selectFrom("turns")
    .select("id")
    .where("status", "in", ["queued", "running"])
    .execute();
  const withJob = new Set((await queue.unfinished()).map((job) => job.turnId));
  const orphans = open.map((row) => row.id).filter((id) => !withJob.has(id));
  for (const turnId of orphans) {
    await recordTurnFailure(
      db,
      turnId,
      ABANDONED_CODE.owner_restarted,
      "The service stopped while this turn was queued or running; send the message again.",
    );
  }
  return orphans;
}

/**
 * A removed member's messages that wait in the queue are not run: each such turn is recorded as
 * failed (`member_removed`) with its terminal event, so every open stream of it ends, and its
 * job finds nothing to claim. A turn already running finishes: it was accepted while they were
 * a member, and stopping it half-way would leave the workspace half-changed.
 */
export async function failQueuedTurnsOfMember(
  db: Kysely<DatabaseSchema>,
  memberId: string,
): Promise<string[]> {
  const queued = await db
    .selectFrom("turns")
    .select("id")
    .where("member_id", "=", memberId)
    .where("status", "=", "queued")
    .execute();
  const failed: string[] = [];
  for (const { id } of queued) {
    const recorded = await recordTurnFailure(
      db,
      id,
      "member_removed",
      "This message was not answered: its writer left the project (or was removed) before Mara got to it.",
    );
    if (recorded) failed.push(id);
  }
  return failed;
}
