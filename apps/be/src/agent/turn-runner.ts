/**
 * The public face of Mara's turns: takes members' messages into the turn queue, runs the
 * queue's jobs on this instance (see turn-lifecycle.ts) and stops cleanly.
 */
import { QueueFullError, WorkerLoop, type WorkQueue } from "@talkide/work-queue";
import type { Kysely } from "kysely";
import { ApiError } from "@talkide/service-kit";
import { engineDb, pruneMovedWarmProcesses, sessionPoints } from "@talkide/turn-engine";
import type { ProjectRow } from "../context/render-state.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { insertQueuedTurn, loadTurnEvents, queuedEvent, type TurnRow } from "../domain/turns.ts";
import type { TurnEventNotifications } from "./event-notifications.ts";
import {
  type LiveTurn,
  type StoredTurnEvent,
  type TurnEvent,
  TurnEventHub,
} from "./turn-events.ts";
import { storeTurnEvents } from "./turn-event-store.ts";
import { runTurn, type StartedHere } from "./turn-lifecycle.ts";
import { failAbandonedTurn, ownerGroupOf, projectLane, type TurnJob } from "./turn-queue.ts";
import type { TurnServices } from "./turn-services.ts";

export interface TurnRunnerOptions extends Omit<TurnServices, "hub"> {
  readonly queueLimit: number;
  /** The turn queue on the database: FIFO per project across every instance. */
  readonly queue: WorkQueue<TurnJob>;
  /** Stored events announced across instances, for streams of turns another instance runs. */
  readonly notifications: TurnEventNotifications;
}

/**
 * Runs Mara's turns: one at a time per project, in the order the messages arrived, on whichever
 * instance of the service takes the project's next job from the turn queue. While a turn runs,
 * up to `queueLimit` further messages wait (FIFO, counted across instances); one more is refused
 * with 409 `project_busy`. Every turn renders the context before its spawn.
 */
export class TurnRunner {
  readonly hub = new TurnEventHub();
  readonly notifications: TurnEventNotifications;
  private readonly options: TurnRunnerOptions;
  private readonly services: TurnServices;
  private stopPruning: () => void = () => undefined;
  /** Turns whose own message started them here, until their job's handler picks them up. */
  private readonly startedHere = new Map<string, StartedHere>();
  /** The turns running here, each with the switch a member's stop turns off. */
  private readonly stoppable = new Map<string, AbortController>();
  private readonly stopListening: () => void;
  /** Takes the queue's jobs to runTurn on this instance; abandoned turns are recorded failed. */
  private readonly loop: WorkerLoop<TurnJob>;

  constructor(options: TurnRunnerOptions) {
    this.options = options;
    this.loop = new WorkerLoop({
      queue: options.queue,
      run: (job, signal) => this.runQueued(job.data.turnId, signal),
      abandoned: (job) => failAbandonedTurn(options.db, options.logger, job),
      // A job must finish: a failed turn is recorded, never left to hold the project's lane.
      runFailed: (job, error) => {
        options.logger.error({ err: error, turnId: job.data.turnId }, "turn runner failed");
      },
    });
    this.notifications = options.notifications;
    const { db, logger, claude, layout, writeHooks, watchdog, warm, demoModel, gateway } = options;
    this.services = {
      db,
      logger,
      claude,
      layout,
      watchdog,
      warm,
      demoModel,
      gateway,
      ...(writeHooks === undefined ? {} : { writeHooks }),
      hub: this.hub,
    };
    // A stop asked on any instance reaches the one that runs the turn.
    this.stopListening = this.notifications.onStopRequest((turnId) => {
      this.stoppable.get(turnId)?.abort();
    });
  }

  /** Queues a message from a member; the turn's events follow on the hub. */
  async submit(options: {
    /** The project's row as the sender's membership check read it. */
    project: ProjectRow;
    memberId: string;
    prompt: string;
  }): Promise<TurnRow> {
    if (this.loop.stopping) {
      throw new ApiError(
        503,
        "service_stopping",
        "The service is shutting down and takes no new messages; send it again once it is back.",
        { title: "Service is stopping" },
      );
    }
    const { queueLimit } = this.options;
    let queued: { row: TurnRow; first: TurnEvent };
    // Turns of one owner's projects hold at most their share of the slots (TALKIDE_OWNER_TURN_SHARE).
    const group = await ownerGroupOf(this.options.db, options.project.id);
    try {
      const { project, memberId, prompt } = options;
      ({ result: queued } = await this.options.queue.enqueue(
        projectLane(project.id),
        queueLimit,
        async (trx, position) => {
          // The turn, its first event and its job are written together or not at all.
          const db = trx as unknown as Kysely<DatabaseSchema>;
          const row = await insertQueuedTurn(db, {
            projectId: project.id,
            memberId,
            prompt,
            position,
          });
          const first = queuedEvent(row, position);
          return {
            data: { turnId: row.id },
            result: { row, first },
          };
        },
        {
          // A message for an idle project starts here, taken by its own enqueue: no worker
          // has to fetch the job, and the turn is live (its events in memory) from the first.
          runHere: true,
          ...(group === undefined ? {} : { group }),
          beforeRunHere: ({ row, first }) => {
            this.startedHere.set(row.id, { turn: row, project });
            this.liveTurn(row.id, [first]);
          },
        },
      ));
    } catch (error) {
      if (!(error instanceof QueueFullError)) throw error;
      throw new ApiError(
        409,
        "project_busy",
        queueLimit === 0
          ? "A turn is running for this project; send the message again when it has finished."
          : `A turn is running and ${error.waiting} more message(s) are waiting for this project (at most ${queueLimit} may wait); send the message again when the queue is shorter.`,
        { title: "Mara is busy with this project" },
      );
    }
    // A turn that waits in the queue may run on another instance: clients follow it through
    // the stored events and their announcements until an instance runs it.
    return queued.row;
  }

  /**
   * Deletes the project's waiting jobs in `trx`, unless its turn runs: then nothing is deleted
   * and the count of running jobs is returned (see WorkQueue.deleteKey).
   */
  removeProjectJobs(trx: Kysely<DatabaseSchema>, projectId: number): Promise<number> {
    return this.options.queue.deleteKey(trx as unknown as Kysely<never>, projectLane(projectId));
  }

  /** Starts taking jobs from the queue (after any abandoned ones were recorded). */
  start(): Promise<void> {
    this.stopPruning = pruneMovedWarmProcesses(this.options.warm, {
      // A project's session scope is its warm key.
      sessionPoints: (keys) => sessionPoints(engineDb(this.options.db), keys),
      log: this.options.logger,
    });
    return this.loop.start();
  }

  private liveTurn(turnId: string, stored: readonly StoredTurnEvent[]): LiveTurn {
    return (
      this.hub.get(turnId) ??
      this.hub.open(turnId, (events) => this.persistEvents(turnId, events), stored)
    );
  }

  private async runQueued(turnId: string, signal: AbortSignal): Promise<void> {
    // Open already when its message came to this instance and started it here.
    const live =
      this.hub.get(turnId) ?? this.liveTurn(turnId, await loadTurnEvents(this.options.db, turnId));
    const startedHere = this.startedHere.get(turnId);
    this.startedHere.delete(turnId);
    const stop = new AbortController();
    this.stoppable.set(turnId, stop);
    try {
      await runTurn(
        this.services,
        turnId,
        live,
        AbortSignal.any([signal, stop.signal]),
        startedHere,
      );
    } finally {
      this.stoppable.delete(turnId);
    }
  }

  private async persistEvents(turnId: string, events: readonly TurnEvent[]): Promise<void> {
    try {
      await storeTurnEvents(this.options.db, turnId, events);
    } catch (error) {
      this.options.logger.error(
        { err: error, turnId, seqs: events.map((event) => event.seq) },
        "could not store turn events",
      );
    }
  }

  /**
   * Stops taking messages and jobs, aborts this instance's running turns (Claude Code and
   * everything it started is terminated; each is recorded as failed) and waits until they are
   * settled and stored. Queued turns stay queued: another instance, or this one after a
   * restart, runs them.
   */
  async close(): Promise<void> {
    const stopping = this.loop.stop();
    this.stopListening();
    // No new job, the running turns aborted and settled, the queue closed (a queued turn stays
    // queued for another instance or the next start).
    await stopping;
    // No turn runs any more: the kept processes end with the instance.
    this.stopPruning();
    // A job put back unstarted while stopping runs elsewhere, from a claim.
    this.startedHere.clear();
    await this.options.warm.close();
    this.hub.detachAll();
    await this.notifications.close();
  }
}
