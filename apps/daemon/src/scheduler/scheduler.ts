import {
  ABANDONED_CODE,
  WorkerLoop,
  WorkQueue,
  type AbandonedJob,
  type QueueConnection,
  type QueuedJob,
} from "@talkide/work-queue";
import { inspectWorkspace } from "@talkide/turn-engine";
import type { Kysely, Transaction } from "kysely";
import type { DaemonDb } from "../db/schema.ts";
import { killOrphanedTurnProcesses } from "../runtime/orphans.ts";
import {
  abandonDelivery,
  claimDelivery,
  failDelivery,
  insertDelivery,
  requeueDelivery,
  retryDelivery,
  type NewDelivery,
} from "../store/deliveries.ts";
import { executeDelivery, type TurnContext } from "./execute-delivery.ts";

/** What a job carries: the delivery row holds everything else. */
interface DeliveryJob {
  readonly deliveryId: string;
}

/** The work queue of every daemon on one database. */
const QUEUE_NAME = "daemon-deliveries";

/** A conversation of an agent: one lane, unambiguous whatever the ids contain. */
export function laneKey(agentId: string, conversationId: string): string {
  return JSON.stringify([agentId, conversationId]);
}

/** The agent of a lane key; undefined for a key `laneKey` did not write. */
export function laneAgent(key: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(key);
    return Array.isArray(parsed) && typeof parsed[0] === "string" ? parsed[0] : undefined;
  } catch {
    return undefined;
  }
}

/** Rolls an enqueue back while carrying what the caller should answer instead. */
class NotEnqueued<R> extends Error {
  readonly value: R;
  constructor(value: R) {
    super("not enqueued");
    this.value = value;
  }
}

/** Nothing waits in a daemon's lanes but what was accepted: no limit of its own. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export interface SchedulerOptions {
  readonly connection: QueueConnection;
  readonly concurrency: number;
  readonly leaseSeconds: number;
  readonly turnTimeoutMs: number;
  readonly maxAttempts: number;
  readonly instanceName: string;
}

/**
 * Runs deliveries as turns on the work queue (`@talkide/work-queue`, pg-boss's
 * `key_strict_fifo`) that every daemon on the same database shares: a delivery is a job in the
 * lane of its (agent, conversation), written in the same transaction as the delivery; a lane's
 * jobs run one at a time in acceptance order, on whichever daemon fetches them; lanes run in
 * parallel, up to `concurrency` on this daemon.
 *
 * A daemon that dies stops renewing its jobs' leases: some live daemon then fails the job
 * (`instance_lease_expired` on its turns), kills the dead turn's processes when they are on
 * its machine, and puts the delivery back in line (or fails it after `maxAttempts` starts).
 * On the embedded database, which admits one process, a start does the same at once for what
 * the killed process left running (`service_restarted`: the queue's `reclaimAtStart`). A
 * starting daemon touches nothing else: live work of other daemons is theirs.
 */
export class Scheduler {
  readonly #db: DaemonDb;
  readonly #queue: WorkQueue<DeliveryJob>;
  readonly #options: SchedulerOptions;
  /** Each agent's workspace as its last claimed delivery named it (see `#runDelivery`). */
  readonly #workspaces = new Map<string, string>();
  /** Takes the queue's jobs to `#runDelivery` on this daemon; abandoned ones to `#abandoned`. */
  readonly #loop: WorkerLoop<DeliveryJob>;
  #ctx: TurnContext | null = null;

  private constructor(db: DaemonDb, queue: WorkQueue<DeliveryJob>, options: SchedulerOptions) {
    this.#db = db;
    this.#queue = queue;
    this.#options = options;
    this.#loop = new WorkerLoop({
      queue,
      run: (job, signal) => this.#run(job, signal),
      abandoned: (job) => this.#abandoned(job),
    });
  }

  /** Opens the queue (installs pg-boss's schema when missing, safe from several daemons). */
  static async open(db: DaemonDb, options: SchedulerOptions): Promise<Scheduler> {
    const queue = await WorkQueue.open<DeliveryJob>({
      connection: options.connection,
      kysely: db as unknown as Kysely<never>,
      queue: QUEUE_NAME,
      leaseSeconds: options.leaseSeconds,
      jobTimeoutMs: options.turnTimeoutMs,
      concurrency: options.concurrency,
      instanceName: options.instanceName,
    });
    return new Scheduler(db, queue, options);
  }

  get runningCount(): number {
    return this.#loop.running;
  }

  get concurrency(): number {
    return this.#options.concurrency;
  }

  /**
   * Stores a delivery and its job in one transaction. A repeat of a stored message, or an
   * unknown agent, enqueues nothing (the transaction rolls back) and answers as `insertDelivery`.
   * A delivery whose lane is free starts here before this returns.
   */
  async store(input: NewDelivery): Promise<Awaited<ReturnType<typeof insertDelivery>>> {
    type Stored = Awaited<ReturnType<typeof insertDelivery>>;
    try {
      const { result } = await this.#queue.enqueue(
        laneKey(input.agentId, input.conversationId),
        NO_LIMIT,
        async (trx) => {
          const stored = await insertDelivery(asDaemonDb(trx), input);
          if ("unknownAgent" in stored || stored.duplicate) throw new NotEnqueued<Stored>(stored);
          return { data: { deliveryId: stored.delivery.id }, result: stored as Stored };
        },
        // A message for an idle conversation starts on this daemon at once, taken by its own
        // enqueue: no worker has to fetch the job first.
        { runHere: true },
      );
      return result;
    } catch (error) {
      if (error instanceof NotEnqueued) return error.value as Stored;
      throw error;
    }
  }

  /** Puts a running delivery back at the end of its lane (a new job); false if it was not running. */
  requeue(deliveryId: string): Promise<boolean> {
    return this.#backInLine(deliveryId, requeueDelivery, {});
  }

  /**
   * Puts a failed delivery back at the end of its lane (a new job, written with the state
   * change); false if it was not failed. An idle lane starts it here at once, as a new
   * delivery does.
   */
  retry(deliveryId: string): Promise<boolean> {
    return this.#backInLine(deliveryId, retryDelivery, { runHere: true });
  }

  /** A new job for the delivery, written with `change` (false: not in the state it needs). */
  async #backInLine(
    deliveryId: string,
    change: (db: DaemonDb, deliveryId: string) => Promise<boolean>,
    options: { readonly runHere?: boolean },
  ): Promise<boolean> {
    const row = await this.#db
      .selectFrom("deliveries")
      .select(["agent_id", "conversation_id"])
      .where("id", "=", deliveryId)
      .executeTakeFirst();
    if (row === undefined) return false;
    try {
      await this.#queue.enqueue(
        laneKey(row.agent_id, row.conversation_id),
        NO_LIMIT,
        async (trx) => {
          if (!(await change(asDaemonDb(trx), deliveryId))) throw new NotEnqueued(false);
          return { data: { deliveryId }, result: true };
        },
        options,
      );
      return true;
    } catch (error) {
      if (error instanceof NotEnqueued) return false;
      throw error;
    }
  }

  /**
   * Starts fetching jobs. `ctx` runs the turns. On the embedded database the deliveries a killed
   * run left running are recovered first (by the first sweep of `work`), as the backend does.
   */
  async start(ctx: Omit<TurnContext, "requeue">): Promise<void> {
    this.#ctx = { ...ctx, requeue: (id) => this.requeue(id) };
    await this.#loop.start();
  }

  async #run(job: QueuedJob<DeliveryJob>, signal: AbortSignal): Promise<void> {
    const ctx = this.#ctx;
    if (ctx === null) return;
    await this.#runDelivery(ctx, job.data.deliveryId, laneAgent(job.key), signal);
  }

  async #runDelivery(
    ctx: TurnContext,
    deliveryId: string,
    agentId: string | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    // The check of the workspace before the turn only reads the filesystem: it starts on the
    // workspace the agent had last time while the claim (which says where it is now) runs,
    // and is used only when the claim names the same one.
    const guessed = agentId === undefined ? undefined : this.#workspaces.get(agentId);
    const early =
      guessed === undefined
        ? null
        : { workspace: guessed, inspected: inspectWorkspace(guessed, ctx.claudeConfigDir) };
    // Not awaited when the guess was wrong or nothing runs.
    early?.inspected.catch(() => undefined);
    const delivery = await claimDelivery(this.#db, deliveryId);
    // Already finished (a job of a delivery that another path settled): nothing to run.
    if (delivery === undefined) return;
    this.#workspaces.set(delivery.agent_id, delivery.workspace_dir);
    try {
      await executeDelivery(
        ctx,
        delivery,
        signal,
        early?.workspace === delivery.workspace_dir ? early.inspected : undefined,
      );
    } catch (error) {
      // A bug or a database failure inside the turn: the delivery must not stay running
      // forever, and its reason must say what happened. The job still ends normally, so the
      // conversation's lane goes on.
      ctx.logger.error({ err: error, deliveryId }, "turn crashed inside the daemon");
      const message = error instanceof Error ? error.message : String(error);
      await failDelivery(
        this.#db,
        deliveryId,
        "internal_error",
        `The daemon failed running this turn: ${message}`,
      ).catch(() => undefined);
    }
  }

  /**
   * A job whose daemon stopped renewing its lease, whose daemon was killed on the embedded
   * database (found at the next start), or whose handler threw: its turns are marked, their
   * processes on this machine are killed before the lane goes on, and the delivery goes back in
   * line or fails. Idempotent: a second call finds nothing running.
   */
  async #abandoned(job: AbandonedJob<DeliveryJob>): Promise<void> {
    const ctx = this.#ctx;
    const reason = ABANDONED_CODE[job.reason];
    const restarted = job.reason === "owner_restarted";
    const { deliveryId } = job.data;
    let abandoned: Awaited<ReturnType<typeof abandonDelivery>>;
    const row = await this.#db
      .selectFrom("deliveries")
      .select(["agent_id", "conversation_id"])
      .where("id", "=", deliveryId)
      .executeTakeFirst();
    if (row === undefined) return;
    try {
      // The retry's job is written with the state change, while the abandoned job still holds
      // the lane: it cannot start before this returns and the processes are gone.
      const { result } = await this.#queue.enqueue(
        laneKey(row.agent_id, row.conversation_id),
        NO_LIMIT,
        async (trx) => {
          const outcome = await abandonDelivery(
            asDaemonDb(trx),
            deliveryId,
            reason,
            ABANDONED_TURN_MESSAGE[job.reason],
            this.#options.maxAttempts,
          );
          if (outcome === undefined) {
            // Not running: finished already, or its handler failed before claiming it. A
            // delivery still waiting must keep a job, or it would never run.
            const waiting = await asDaemonDb(trx)
              .selectFrom("deliveries")
              .select("id")
              .where("id", "=", deliveryId)
              .where("state", "=", "accepted")
              .executeTakeFirst();
            if (waiting === undefined) throw new NotEnqueued(undefined);
            return { data: { deliveryId }, result: undefined };
          }
          if (outcome.outcome === "failed") throw new NotEnqueued(outcome);
          return { data: { deliveryId }, result: outcome };
        },
      );
      abandoned = result;
    } catch (error) {
      if (!(error instanceof NotEnqueued)) throw error;
      abandoned = error.value as typeof abandoned;
      // Out of attempts: the failure is written without a job.
      if (abandoned?.outcome === "failed") {
        abandoned = await abandonDelivery(
          this.#db,
          deliveryId,
          reason,
          ABANDONED_TURN_MESSAGE[job.reason],
          this.#options.maxAttempts,
        );
      }
    }
    if (abandoned === undefined) return;
    const orphans = await killOrphanedTurnProcesses(abandoned.processMarkers);
    ctx?.logger.warn(
      {
        deliveryId,
        agentId: abandoned.agentId,
        reason,
        interruptedTurns: abandoned.turnIds.length,
        killedProcesses: orphans.killed.length,
        outcome: abandoned.outcome,
        attempts: abandoned.attempts,
      },
      restarted
        ? "recovered a delivery the daemon's previous run left running"
        : "recovered a delivery whose daemon stopped renewing its lease",
    );
    if (abandoned.outcome === "requeued") {
      ctx?.events.publish({
        type: "delivery.requeued",
        deliveryId,
        agentId: abandoned.agentId,
        attempts: abandoned.attempts,
      });
    } else {
      ctx?.events.publish({
        type: "delivery.failed",
        deliveryId,
        agentId: abandoned.agentId,
        reason: "interrupted",
      });
    }
  }

  /**
   * Stops fetching, aborts the turns in flight (their deliveries go back in line, see
   * `executeDelivery`), waits for them to be recorded, and leaves waiting jobs to the other
   * daemons (or the next start).
   */
  stop(): Promise<void> {
    return this.#loop.stop();
  }
}

/** What an abandoned job's running turns say, by why the job was abandoned. */
const ABANDONED_TURN_MESSAGE: Record<AbandonedJob<DeliveryJob>["reason"], string> = {
  lease_expired: "the daemon running this turn stopped renewing its lease",
  owner_restarted: "the daemon was stopped during this turn; its next start took the turn back",
  handler_failed: "the daemon failed running this turn",
};

/** Kysely's transaction of the queue, typed as the daemon's tables (it is the same database). */
function asDaemonDb(trx: Transaction<never>): DaemonDb {
  return trx as unknown as DaemonDb;
}
