import { randomUUID } from "node:crypto";
import type { EventEmitter } from "node:events";
import type { PGlite } from "@electric-sql/pglite";
import { type Kysely, sql, type Transaction } from "kysely";
import { fromKysely, fromPglite, PgBoss, type ConstructorOptions, type Job } from "pg-boss";

/** Where pg-boss keeps its tables; one schema for every queue of a database. */
const SCHEMA = "pgboss";

/** One enqueue at a time per embedded database (see WorkQueue.serialised). */
const embeddedChains = new WeakMap<PGlite, Promise<void>>();

/** The code a turn (or delivery) gets when its instance stopped renewing its lease. */
export const LEASE_EXPIRED = "instance_lease_expired";

/**
 * The code a turn (or delivery) of an abandoned job gets, by why it was abandoned: the same in
 * every app. `owner_restarted`: the embedded database's previous process was killed while the
 * job ran, and the next start reclaimed it ({@link WorkQueue.reclaimAtStart}).
 */
export const ABANDONED_CODE: Readonly<Record<AbandonedJob<object>["reason"], string>> = {
  lease_expired: LEASE_EXPIRED,
  owner_restarted: "service_restarted",
  handler_failed: "internal_error",
};

/**
 * The queue policy, declared once for every app on the queue (as pg-boss keeps its defaults in
 * one object): the apps read their lease setting within these bounds and pass their turn
 * timeout; every other number here is the queue's alone.
 */
export const QUEUE_POLICY = {
  /** pg-boss refuses job heartbeats shorter than 10 s. */
  minLeaseSeconds: 10,
  /** A dead instance's work is taken back within about 1.3 leases: at most 30 s is asked for. */
  maxLeaseSeconds: 30,
  /** The lease when the app sets none. */
  leaseSeconds: 20,
  /**
   * A job is never run twice by the queue: a handler settles its own work (a failed turn is a
   * finished job), and work whose instance died is handed to the app as abandoned instead.
   */
  retryLimit: 0,
  /**
   * Seconds a job may run past its own timeout before pg-boss expires it: the kill grace, and
   * the outcome's bookkeeping (a transcript stored whole, on a slow server). Expiry catches
   * only a live instance's stuck handler (a dead instance's jobs fail by lease long before), so
   * the larger of the two margins the apps had is taken: it never cuts short a finishing turn.
   */
  runMarginSeconds: 120,
  /** Jobs an instance runs at the same time unless told otherwise. */
  concurrency: 8,
  /**
   * How often an idle worker looks for a job on the embedded database, where every way a job
   * becomes runnable (an enqueue, a finished job, a swept one) wakes a worker at once, so the
   * look is only a backstop (on a server: every second, see `work`).
   */
  embeddedPollSeconds: 30,
} as const;

/** The longest a job of `jobTimeoutMs` may run at all: its timeout plus the policy's margin. */
function maxRunSeconds(jobTimeoutMs: number): number {
  return Math.ceil(jobTimeoutMs / 1000) + QUEUE_POLICY.runMarginSeconds;
}

/** How pg-boss reaches the database: the embedded PGlite the app already opened, or a server. */
export type QueueConnection =
  | { readonly kind: "embedded"; readonly pglite: PGlite }
  | { readonly kind: "server"; readonly connectionString: string };

export interface WorkQueueOptions {
  readonly connection: QueueConnection;
  /**
   * The app's own Kysely over the same database: the enqueue runs in one of its transactions,
   * so the caller's row (a turn) and the job are written together or not at all.
   */
  readonly kysely: Kysely<never>;
  /** The queue's name (letters, digits, `_`, `-`, `.`); one per kind of work. */
  readonly queue: string;
  /**
   * Seconds an instance may go without renewing a running job's lease before that job fails
   * with {@link LEASE_EXPIRED} on whichever instance notices first.
   */
  readonly leaseSeconds?: number;
  /**
   * How long the work of one job may take by its own timeout (a turn's); the queue expires a
   * job that runs longer than this plus {@link QUEUE_POLICY}'s margin.
   */
  readonly jobTimeoutMs: number;
  /** Keys this instance runs at the same time. */
  readonly concurrency?: number;
  /**
   * Jobs of one group (see {@link EnqueueOptions.group}) that may run at the same time, across
   * every instance: a group's further jobs wait while others' run (pg-boss's group concurrency).
   * Unset: no limit per group.
   */
  readonly groupConcurrency?: number;
  /** Shown in the instance registry. */
  readonly instanceName?: string;
}

export interface QueuedJob<T> {
  readonly id: string;
  readonly key: string;
  readonly data: T;
}

/** A job whose instance died (lease expired) or whose handler threw; it no longer holds its key. */
export interface AbandonedJob<T> extends QueuedJob<T> {
  readonly reason: "lease_expired" | "handler_failed" | "owner_restarted";
}

export interface KeyLength {
  /** 1 while a job of the key runs (or is being abandoned), else 0. */
  readonly running: number;
  readonly waiting: number;
}

export interface EnqueueOptions<R> {
  /**
   * Whose work this is (an owner, a tenant): at most `groupConcurrency` jobs of one group run
   * at the same time, so one group cannot hold every slot while others wait.
   */
  readonly group?: string;
  /**
   * Start the job on this instance, in this transaction, when its key's lane is empty and this
   * instance works the queue with a free slot: no worker has to fetch it (see
   * {@link WorkQueue.enqueue}). Otherwise the job waits in its lane as usual.
   */
  readonly runHere?: boolean;
  /**
   * Called with the enqueue's result when the job was started here, just before its handler
   * begins (in the same tick as the commit): what the handler should find ready.
   */
  readonly beforeRunHere?: (result: R) => void;
}

export interface Enqueued<R> {
  readonly jobId: string;
  /** Jobs ahead of this one in its key's lane, the running one included: 0 runs at once. */
  readonly position: number;
  readonly result: R;
  /** The job was started on this instance by the enqueue itself (`runHere`). */
  readonly runsHere: boolean;
}

/** The key's lane is full: the caller maps this to its own stable error. */
export class QueueFullError extends Error {
  readonly code = "queue_full";
  readonly waiting: number;
  readonly limit: number;
  constructor(key: string, waiting: number, limit: number) {
    super(`The lane ${key} has ${waiting} waiting job(s); at most ${limit} may wait.`);
    this.name = "QueueFullError";
    this.waiting = waiting;
    this.limit = limit;
  }
}

export interface InstanceInfo {
  readonly id: string;
  readonly name: string | null;
  readonly host: string;
  readonly pid: number;
  readonly live: boolean;
  readonly lastSeenAt: Date;
}

/** What pg-boss stores: the key travels in the data, since a fetched job does not carry it. */
interface Envelope<T> {
  readonly key: string;
  readonly payload: T;
}

interface JobRow {
  id: string;
  singleton_key: string;
  data: unknown;
  output: unknown;
}

function validLease(seconds: number): number {
  const { minLeaseSeconds: min, maxLeaseSeconds: max } = QUEUE_POLICY;
  if (!Number.isInteger(seconds) || seconds < min || seconds > max) {
    throw new RangeError(
      `leaseSeconds must be a whole number from ${min} to ${max} (got ${seconds}).`,
    );
  }
  return seconds;
}

/** Written into the output of the jobs {@link WorkQueue.reclaimAfterRestart} fails. */
const OWNER_RESTARTED = "talkide: the embedded database's previous process is gone";

/** pg-boss's heartbeat failure writes "job heartbeat timeout" into the job's output. */
function abandonReason(output: unknown): AbandonedJob<unknown>["reason"] {
  const text = JSON.stringify(output ?? null);
  if (text.includes(OWNER_RESTARTED)) return "owner_restarted";
  return text.includes("heartbeat timeout") ? "lease_expired" : "handler_failed";
}

/**
 * One queue of keyed jobs on pg-boss's `key_strict_fifo` policy: a key's jobs run one at a time
 * in the order they were enqueued, on any instance; different keys run in parallel. A job that
 * is active, in retry or failed holds its key (pg-boss's rule), so a handler must settle its
 * own work and return normally; this wrapper removes an abandoned job (lease expired, handler
 * threw) after telling the app, which is what lets the key's lane go on.
 */
export class WorkQueue<T extends object> {
  private readonly boss: PgBoss;
  private readonly options: WorkQueueOptions;
  private readonly leaseSeconds: number;
  private sweepTimer: NodeJS.Timeout | null = null;
  private superviseTimer: NodeJS.Timeout | null = null;
  private supervising: Promise<void> | null = null;
  private sweeping: Promise<void> | null = null;
  private workerId: string | null = null;
  private stoppedTaking = false;
  private onAbandoned: ((job: AbandonedJob<T>) => Promise<void>) | null = null;
  private handler: ((job: QueuedJob<T>, signal: AbortSignal) => Promise<void>) | null = null;
  /** Jobs started here by their enqueue ({@link EnqueueOptions.runHere}), until they settle. */
  private readonly startedHere = new Map<
    string,
    { settled: Promise<void>; abort: AbortController }
  >();
  private closed = false;
  /**
   * This instance's handler slots: `concurrency` in all, shared by fetched jobs and jobs
   * started at their enqueue. pg-boss runs up to `concurrency` fetched jobs by itself and knows
   * nothing of the others, so a fetched job whose slot an enqueue took waits here for one.
   */
  private slotsTaken = 0;
  private readonly slotWaiters: Array<() => void> = [];

  private constructor(options: WorkQueueOptions, boss: PgBoss, leaseSeconds: number) {
    this.options = options;
    this.boss = boss;
    this.leaseSeconds = leaseSeconds;
  }

  /**
   * Installs or migrates pg-boss's schema in an embedded database, as {@link open} does first,
   * without creating a queue or registering an instance: for a database made ahead of its
   * first start (the tests' template databases), whose services then find nothing to install.
   */
  static async install(pglite: PGlite): Promise<void> {
    const boss = new PgBoss({
      schema: SCHEMA,
      db: fromPglite(pglite),
      backend: "pglite",
      supervise: false,
      schedule: false,
      registerInstance: false,
    });
    (boss as unknown as EventEmitter).on("error", () => undefined);
    await boss.start();
    await boss.stop({ graceful: false, close: false });
  }

  /** Installs or migrates pg-boss's schema (idempotent, safe from several instances) and the queue. */
  static async open<T extends object>(options: WorkQueueOptions): Promise<WorkQueue<T>> {
    const leaseSeconds = validLease(options.leaseSeconds ?? QUEUE_POLICY.leaseSeconds);
    // The supervisor (any instance; pg-boss elects one per pass with an advisory lock) fails
    // jobs whose heartbeat is older than the lease; a pass every third of the lease keeps the
    // worst case near 1.3 leases.
    const check = Math.max(1, Math.floor(leaseSeconds / 3));
    const embedded = options.connection.kind === "embedded";
    const common: ConstructorOptions = {
      schema: SCHEMA,
      // On the embedded database this queue runs the passes itself, and only while a job is
      // active (superviseWhileBusy); each tick then claims its pass, whatever the drift.
      supervise: !embedded,
      superviseIntervalSeconds: check,
      monitorIntervalSeconds: embedded ? 1 : check,
      schedule: false,
      registerInstance: true,
      instanceHeartbeatSeconds: check,
      ...(options.instanceName === undefined ? {} : { instanceName: options.instanceName }),
    };
    const boss =
      options.connection.kind === "embedded"
        ? new PgBoss({ ...common, db: fromPglite(options.connection.pglite), backend: "pglite" })
        : new PgBoss({ ...common, connectionString: options.connection.connectionString, max: 4 });
    // The typings lose the EventEmitter base under our settings; pg-boss is one at runtime.
    (boss as unknown as EventEmitter).on("error", () => {
      // pg-boss retries its background passes itself; an error here is one failed pass. The
      // app's logger sees failures where they matter (enqueue, handler).
    });
    await boss.start();
    const queue = new WorkQueue<T>(options, boss, leaseSeconds);
    await queue.ensureQueue();
    if (embedded) queue.superviseWhileBusy(check);
    return queue;
  }

  /**
   * Embedded database only: runs pg-boss's supervision pass every `everySeconds` while a job of
   * this queue is active, and not at all while none is. A pass watches running jobs only (a
   * lease or a run time running out; completed jobs are cleared by a later one), and a job a
   * dead process left active keeps the passes coming until its lease fails it. On PGlite a
   * pass runs in the app's own thread and costs tens of milliseconds: pg-boss's own timer
   * (with a worker's look every 5 s) kept an idle `npm start` at 2.7% of a core, now 1.0%. On a
   * server, pg-boss's timer stays: any instance may have to take over a dead one's jobs.
   */
  private superviseWhileBusy(everySeconds: number): void {
    this.superviseTimer = setInterval(() => {
      // A failed pass (the database briefly unreachable) is retried by the next tick.
      this.supervising ??= this.superviseIfBusy()
        .catch(() => undefined)
        .finally(() => {
          this.supervising = null;
        });
    }, everySeconds * 1000);
    this.superviseTimer.unref();
  }

  private async superviseIfBusy(): Promise<void> {
    if (this.closed) return;
    const { rows } = await sql<{ busy: boolean }>`
      SELECT EXISTS (SELECT 1 FROM ${sql.table(`${SCHEMA}.job`)}
                     WHERE name = ${this.options.queue} AND state = 'active') AS busy`.execute(
      this.options.kysely,
    );
    if (rows[0]?.busy === true) await this.boss.supervise(this.options.queue);
  }

  private async ensureQueue(): Promise<void> {
    if ((await this.boss.getQueue(this.options.queue)) !== null) return;
    try {
      await this.boss.createQueue(this.options.queue, {
        policy: "key_strict_fifo",
        heartbeatSeconds: this.leaseSeconds,
        expireInSeconds: maxRunSeconds(this.options.jobTimeoutMs),
        retryLimit: QUEUE_POLICY.retryLimit,
        notify: true,
      });
    } catch (error) {
      // Another instance created it between the check and the create.
      if ((await this.boss.getQueue(this.options.queue)) === null) throw error;
    }
  }

  /**
   * Adds a job at the end of `key`'s lane, atomically with whatever `create` writes in the same
   * transaction. Refused with {@link QueueFullError} when `limit` jobs already wait and something
   * is ahead; the count is taken under a per-key advisory lock on a server, so it holds across
   * instances (an embedded database's enqueues run one at a time in its one process).
   *
   * With `runHere`, a job that would run at once (its lane is empty) is written already taken
   * by this instance, in the statement that orders it: the job skips the worker's fetch, a
   * query per job and the wait for a worker to wake, and its handler starts as soon as the
   * transaction commits. It is an ordinary active job from then on: its lease is renewed, and
   * when this instance dies it is abandoned like any other.
   */
  async enqueue<R>(
    key: string,
    limit: number,
    create: (trx: Transaction<never>, position: number) => Promise<{ data: T; result: R }>,
    options: EnqueueOptions<R> = {},
  ): Promise<Enqueued<R>> {
    const id = randomUUID();
    // A slot taken for the job inside the transaction is given back if the transaction fails.
    const slot = { taken: false };
    const enqueued = this.serialised(() =>
      this.options.kysely.transaction().execute(async (trx) => {
        // On a server, instances enqueue at once: the key's lock makes count-then-insert atomic
        // among them. An embedded database has one process, whose enqueues on it already run
        // one after the other (serialised): the lock would be a statement that never waits.
        if (this.options.connection.kind === "server") {
          await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${this.options.queue}:${key}`}, 0))`.execute(
            trx,
          );
        }
        const length = await this.lengthIn(trx, key);
        if (length.running + length.waiting > 0 && length.waiting >= limit) {
          throw new QueueFullError(key, length.waiting, limit);
        }
        const position = length.running + length.waiting;
        const created = await create(trx, position);
        const runHere =
          options.runHere === true &&
          position === 0 &&
          (await this.groupHasRoom(trx, options.group)) &&
          this.takeSlotNow();
        slot.taken = runHere;
        const envelope: Envelope<T> = { key, payload: created.data };
        await this.boss.send(this.options.queue, envelope, {
          id,
          singletonKey: key,
          ...(options.group === undefined ? {} : { group: { id: options.group } }),
          db: fromKysely(trx),
        });
        // pg-boss orders a key's jobs by created_on (then by the random id), and created_on is the
        // transaction's start: two enqueues that began in one order and took the lock in the other
        // would run out of order, and PGlite's coarse clock makes ties. Stamping the row under the
        // lock, strictly after the key's latest job, makes the lock order the run order. A job
        // run here is taken in the same statement, as a worker's fetch takes one (state, start
        // and first heartbeat).
        await sql`
        UPDATE ${sql.table(`${SCHEMA}.job`)} SET created_on = GREATEST(
          clock_timestamp(),
          (SELECT max(created_on) + interval '1 microsecond' FROM ${sql.table(`${SCHEMA}.job`)}
           WHERE name = ${this.options.queue} AND singleton_key = ${key} AND id <> ${id}))
          ${runHere ? sql`, state = 'active', started_on = ${sql.raw(SCHEMA)}.job_now(), heartbeat_on = ${sql.raw(SCHEMA)}.job_now()` : sql``}
        WHERE name = ${this.options.queue} AND id = ${id}`.execute(trx);
        return {
          position,
          result: created.result,
          job: runHere ? { id, key, data: created.data } : null,
        };
      }),
    );
    let taken: Awaited<typeof enqueued>;
    try {
      taken = await enqueued;
    } catch (error) {
      if (slot.taken) this.releaseSlot();
      throw error;
    }
    const { position, result, job } = taken;
    if (job === null) {
      // One new job: one idle worker looks. (On a server pg-boss's own NOTIFY also wakes them.)
      this.wakeWorkers(1);
    } else {
      // The job is taken and holds a slot: it starts even if the caller's callback throws
      // (the throw still reaches the caller), or it would sit active until its lease ran out.
      try {
        options.beforeRunHere?.(result);
      } finally {
        this.startHere(job);
      }
    }
    return { jobId: id, position, result, runsHere: job !== null };
  }

  /** Whether a job of `group` may start now: its group runs fewer than `groupConcurrency`. */
  private async groupHasRoom(trx: Kysely<never>, group: string | undefined): Promise<boolean> {
    const limit = this.options.groupConcurrency;
    if (group === undefined || limit === undefined) return true;
    const { rows } = await sql<{ running: number }>`
      SELECT count(*)::int AS running FROM ${sql.table(`${SCHEMA}.job`)}
      WHERE name = ${this.options.queue} AND state = 'active' AND group_id = ${group}`.execute(trx);
    return (rows[0]?.running ?? 0) < limit;
  }

  /**
   * Takes a handler slot for a job to start here now, if this instance works the queue and
   * one is free. Never waits: a job that finds none is left to the workers.
   */
  private takeSlotNow(): boolean {
    if (this.handler === null || this.stoppedTaking || this.closed) return false;
    if (this.slotsTaken >= this.concurrency()) return false;
    this.slotsTaken += 1;
    return true;
  }

  /** A handler slot for a fetched job, waiting while jobs started here hold them all. */
  private takeSlot(): Promise<void> {
    if (this.slotsTaken < this.concurrency()) {
      this.slotsTaken += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  /** Gives a slot back, or hands it straight to a fetched job that waits for one. */
  private releaseSlot(): void {
    const next = this.slotWaiters.shift();
    if (next === undefined) this.slotsTaken -= 1;
    else next();
  }

  private concurrency(): number {
    return this.options.concurrency ?? QUEUE_POLICY.concurrency;
  }

  /**
   * Runs a job its enqueue took: what a pg-boss worker does for a job it fetched, here for one
   * no worker fetched. The lease is renewed while the handler runs; a job whose lease was taken
   * away (failed as expired) has its signal aborted; a handler that throws fails the job, which
   * the next sweep hands over as abandoned.
   */
  private startHere(job: QueuedJob<T>): void {
    const handler = this.handler;
    if (handler === null) throw new Error("startHere without a handler");
    const abort = new AbortController();
    const run = async (): Promise<void> => {
      if (this.stoppedTaking) {
        // This instance stopped taking work while the enqueue committed: the job goes back to
        // its lane (as the head, which it still is) for another instance or the next start.
        await this.putBack(job.id);
        return;
      }
      const renew = setInterval(
        () => {
          this.renewLease(job.id, abort).catch(() => undefined);
        },
        (this.leaseSeconds * 1000) / 4,
      );
      try {
        await handler(job, abort.signal);
        await this.boss.complete(this.options.queue, job.id);
      } catch (error) {
        await this.boss
          .fail(this.options.queue, job.id, { message: String(error) })
          .catch(() => undefined);
        this.sweep().catch(() => undefined);
      } finally {
        clearInterval(renew);
      }
      // The key's next job may be waiting, as after a fetched job.
      this.wakeWorkers(1);
    };
    const settled = run().finally(() => {
      this.startedHere.delete(job.id);
      this.releaseSlot();
    });
    this.startedHere.set(job.id, { settled, abort });
  }

  /** Renews a job's lease; a job no longer active (its lease expired) is aborted. */
  private async renewLease(jobId: string, abort: AbortController): Promise<void> {
    if (abort.signal.aborted) return;
    // What pg-boss's worker heartbeat (touch) does for a fetched job.
    const { rows } = await sql<{ id: string }>`
      UPDATE ${sql.table(`${SCHEMA}.job`)} SET heartbeat_on = ${sql.raw(SCHEMA)}.job_now()
      WHERE name = ${this.options.queue} AND id = ${jobId} AND state = 'active'
      RETURNING id`.execute(this.options.kysely);
    if (rows.length === 0) {
      abort.abort(new Error(`job ${jobId} is no longer active under this instance's lease`));
    }
  }

  /**
   * pg-boss's restore of a taken job: waiting again, as if never started, but as a new attempt.
   * pg-boss settles a fetched job after its callback returns, fenced to the attempt it fetched
   * (`retry_count`); a restore keeps the count, so that settle could complete another instance's
   * fresh claim of the same job. The next attempt number makes it miss. (Retries are off:
   * `retryLimit` 0, so the count decides nothing else.)
   */
  private async putBack(jobId: string): Promise<void> {
    await sql`
      UPDATE ${sql.table(`${SCHEMA}.job`)}
      SET state = 'created', started_on = NULL, heartbeat_on = NULL, retry_count = retry_count + 1
      WHERE name = ${this.options.queue} AND id = ${jobId} AND state = 'active'`.execute(
      this.options.kysely,
    );
    this.wakeWorkers(1);
  }

  /**
   * Kysely's PGlite driver keeps one transaction per connection and PGlite has one connection:
   * two transactions begun at once would share it. The embedded database is one process's, so
   * a chain in this process serialises every enqueue on it, whichever queue or Kysely object
   * it comes from; that order is also what makes a key's count-then-insert atomic there (a
   * server needs no chain: each takes a pooled client, and the key's advisory lock orders them).
   */
  private serialised<R>(work: () => Promise<R>): Promise<R> {
    const { connection } = this.options;
    if (connection.kind === "server") return work();
    const previous = embeddedChains.get(connection.pglite) ?? Promise.resolve();
    const next = previous.then(work, work);
    embeddedChains.set(
      connection.pglite,
      next.then(
        () => undefined,
        () => undefined,
      ),
    );
    return next;
  }

  /** How many jobs of `key` run and wait, across every instance. */
  length(key: string): Promise<KeyLength> {
    return this.lengthIn(this.options.kysely, key);
  }

  private async lengthIn(db: Kysely<never>, key: string): Promise<KeyLength> {
    const { rows } = await sql<{ running: number; waiting: number }>`
      SELECT count(*) FILTER (WHERE state IN ('active', 'failed'))::int AS running,
             count(*) FILTER (WHERE state IN ('created', 'retry'))::int AS waiting
      FROM ${sql.table(`${SCHEMA}.job`)}
      WHERE name = ${this.options.queue} AND singleton_key = ${key}`.execute(db);
    const row = rows[0];
    return { running: row?.running ?? 0, waiting: row?.waiting ?? 0 };
  }

  /**
   * Deletes every job of `key` in the caller's transaction (the app deletes what the jobs were
   * for in the same one), unless one runs or is being abandoned: then nothing is deleted and
   * the count of those is returned, for the caller to refuse (0: the lane is gone).
   */
  async deleteKey(trx: Kysely<never>, key: string): Promise<number> {
    if (this.options.connection.kind === "server") {
      // The lock enqueues of the key take: none adds a job while its lane is deleted.
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${this.options.queue}:${key}`}, 0))`.execute(
        trx,
      );
    }
    // Locked first, so that a worker's fetch (which skips locked jobs) cannot start one of
    // them between the count and the delete.
    const { rows } = await sql<{ state: string }>`
      SELECT state FROM ${sql.table(`${SCHEMA}.job`)}
      WHERE name = ${this.options.queue} AND singleton_key = ${key}
      FOR UPDATE`.execute(trx);
    const running = rows.filter((row) => row.state === "active" || row.state === "failed").length;
    if (running > 0) return running;
    await sql`
      DELETE FROM ${sql.table(`${SCHEMA}.job`)}
      WHERE name = ${this.options.queue} AND singleton_key = ${key}`.execute(trx);
    return 0;
  }

  /** Jobs ahead of `jobId` in its lane (0: it runs or is next); null once it has finished. */
  async position(key: string, jobId: string): Promise<number | null> {
    const { rows } = await sql<{ ahead: number | null }>`
      WITH me AS (
        SELECT created_on, id, state FROM ${sql.table(`${SCHEMA}.job`)}
        WHERE name = ${this.options.queue} AND id = ${jobId} AND singleton_key = ${key}
      )
      SELECT CASE WHEN me.state IN ('created', 'retry') THEN (
        SELECT count(*)::int FROM ${sql.table(`${SCHEMA}.job`)} j
        WHERE j.name = ${this.options.queue} AND j.singleton_key = ${key}
          AND (j.state IN ('active', 'failed')
            OR (j.state IN ('created', 'retry') AND (j.created_on, j.id) < (me.created_on, me.id)))
      ) WHEN me.state = 'active' THEN 0 END AS ahead
      FROM me`.execute(this.options.kysely);
    return rows[0]?.ahead ?? null;
  }

  /**
   * Runs jobs on this instance until {@link close}. `handler` must settle the job's outcome
   * itself (a failed turn is a finished job); `onAbandoned` is called, on some live instance,
   * for each job whose instance stopped renewing its lease or whose handler threw, before the
   * job is removed and its key's lane goes on. Both may run more than once for one job when
   * instances race, so they must be idempotent.
   */
  async work(
    handler: (job: QueuedJob<T>, signal: AbortSignal) => Promise<void>,
    onAbandoned: (job: AbandonedJob<T>) => Promise<void>,
  ): Promise<void> {
    this.onAbandoned = onAbandoned;
    const embedded = this.options.connection.kind === "embedded";
    this.workerId = await this.boss.work<Envelope<T>>(
      this.options.queue,
      {
        batchSize: 1,
        localConcurrency: this.concurrency(),
        // A group at its limit is skipped by the fetch: the next group's job runs instead.
        ...(this.options.groupConcurrency === undefined
          ? {}
          : { groupConcurrency: this.options.groupConcurrency }),
        // The embedded database admits this process alone, and every way a job becomes
        // runnable here (an enqueue, a finished job, a swept one) wakes a worker at once, so
        // polling there is only a backstop. Idle workers' fetches run in the service's own
        // thread and, woken together at start, stay in step: a burst every poll.
        pollingIntervalSeconds: embedded ? QUEUE_POLICY.embeddedPollSeconds : 0.5,
        // With LISTEN/NOTIFY up (a server), pg-boss polls only every 30 s by default and relies
        // on a NOTIFY per new job. But nothing notifies when a lane frees up (a job finished or
        // an abandoned one deleted, on another instance): its next job would wait out that
        // poll. One cheap fetch a second per worker bounds every missed wake-up to a second.
        notifyPollingIntervalSeconds: embedded ? QUEUE_POLICY.embeddedPollSeconds : 1,
        heartbeatRefreshSeconds: this.leaseSeconds / 4,
      },
      async (jobs: Job<Envelope<T>>[]) => {
        for (const job of jobs) {
          // pg-boss heartbeats the job while it waits here, as while its handler runs.
          await this.takeSlot();
          if (this.stoppedTaking) {
            // Fetched by a fetch already under way when stopTaking came, or held here waiting
            // for a slot since before it: it starts nowhere on this instance, it goes back to
            // its lane for another instance or the next start.
            this.releaseSlot();
            await this.putBack(job.id);
            continue;
          }
          try {
            await handler({ id: job.id, key: job.data.key, data: job.data.payload }, job.signal);
            // Completed here, not by pg-boss after this callback returns: the wake-up below
            // must find the lane free. (pg-boss's own completion then finds nothing to do.)
            await this.boss.complete(this.options.queue, {
              id: job.id,
              retryCount: job.retryCount,
            });
          } finally {
            this.releaseSlot();
          }
        }
        // The key's next job may be waiting: look at once instead of after the polling
        // interval (nothing notifies a finished job, and PGlite cannot LISTEN at all). One
        // finished job frees one lane, so one fetch is enough.
        this.wakeWorkers(1);
      },
    );
    this.handler = handler;
    const everyMs = Math.max(1000, Math.floor((this.leaseSeconds * 1000) / 3));
    this.sweepTimer = setInterval(() => {
      // A failed pass (the database briefly unreachable) is retried by the next one.
      this.sweep().catch(() => undefined);
    }, everyMs);
    this.sweepTimer.unref();
    // A job enqueued while the workers were being registered found none to wake.
    this.wakeWorkers(Number.POSITIVE_INFINITY);
    await this.sweep();
  }

  /**
   * Wakes up to `count` idle workers of this queue on this instance so that they fetch now
   * instead of after their polling interval. pg-boss's `notifyWorker` wakes one worker by id,
   * and the id `work()` returns is the first of its `localConcurrency` workers, often the one
   * busy with a long job, so the idle ones are found here. Not every worker: each woken worker
   * runs the fetch query, and on the embedded database, which runs in this thread, eight
   * fetches for one job held up everything else for about ten milliseconds. When no worker is
   * idle, all are told, so the first to finish its job looks at once.
   */
  private wakeWorkers(count: number): void {
    if (this.stoppedTaking) return;
    const workers = this.boss
      .getWipData()
      .filter((worker) => worker.name === this.options.queue && worker.state === "active");
    const idle = workers.filter((worker) => worker.count === 0);
    for (const worker of idle.length === 0 ? workers : idle.slice(0, count)) {
      this.boss.notifyWorker(worker.id);
    }
  }

  /**
   * Takes no further job on this instance; the handlers running now go on. Call it before
   * aborting them on the way out: a job an aborted handler puts back (or the next of its key)
   * must wait for another instance, not start here with an aborted signal. Idempotent.
   */
  stopTaking(): void {
    if (this.stoppedTaking) return;
    this.stoppedTaking = true;
    if (this.workerId !== null) {
      // Not awaited: the running handlers end when the app aborts them; close() waits for them.
      this.boss.offWork(this.options.queue, { wait: false }).catch(() => undefined);
    }
  }

  /** Hands abandoned jobs to the app, then deletes them so their keys' lanes go on. */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    const onAbandoned = this.onAbandoned;
    if (onAbandoned === null || this.closed) return;
    const { rows } = await sql<JobRow>`
      SELECT id, singleton_key, data, output FROM ${sql.table(`${SCHEMA}.job`)}
      WHERE name = ${this.options.queue} AND state = 'failed'`.execute(this.options.kysely);
    for (const row of rows) {
      await onAbandoned({
        id: row.id,
        key: row.singleton_key,
        data: (row.data as Envelope<T>).payload,
        reason: abandonReason(row.output),
      });
      await this.boss.deleteJob(this.options.queue, row.id);
    }
    // The deleted jobs held their keys: the next job of each may run now.
    if (rows.length > 0) this.wakeWorkers(rows.length);
  }

  /** The data of every job that still holds or waits in a lane (not finished, not swept). */
  async unfinished(): Promise<T[]> {
    const { rows } = await sql<{ data: Envelope<T> }>`
      SELECT data FROM ${sql.table(`${SCHEMA}.job`)}
      WHERE name = ${this.options.queue} AND state IN ('created', 'retry', 'active', 'failed')`.execute(
      this.options.kysely,
    );
    return rows.map((row) => row.data.payload);
  }

  /**
   * Embedded database only: PGlite admits one process (the app holds a pid lock), so every job
   * still active in it belongs to a process that is gone, and waiting out its lease would only
   * delay the lane. Fails those jobs so the next {@link sweep} hands them to `onAbandoned`
   * (reason `owner_restarted`). Call before {@link work}. On a server this would take live
   * instances' work, so it refuses.
   */
  async reclaimAfterRestart(): Promise<number> {
    if (this.options.connection.kind !== "embedded") {
      throw new Error(
        "reclaimAfterRestart is for the embedded database only: on a server, other live instances own active jobs; their leases decide.",
      );
    }
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM ${sql.table(`${SCHEMA}.job`)}
      WHERE name = ${this.options.queue} AND state = 'active'`.execute(this.options.kysely);
    if (rows.length === 0) return 0;
    await this.boss.fail(
      this.options.queue,
      rows.map((row) => row.id),
      { message: OWNER_RESTARTED },
    );
    return rows.length;
  }

  /**
   * What a starting instance does before {@link work}, once for every app: on the embedded
   * database, which admits one process, the jobs still active are a killed process's and are
   * reclaimed at once ({@link reclaimAfterRestart}: the first sweep hands them to `onAbandoned`
   * as `owner_restarted`) instead of after their lease; on a server nothing, since live
   * instances own their active jobs and only leases decide. Returns how many were reclaimed.
   */
  reclaimAtStart(): Promise<number> {
    return this.options.connection.kind === "embedded"
      ? this.reclaimAfterRestart()
      : Promise.resolve(0);
  }

  /**
   * Waits for the jobs started here by their enqueue, as pg-boss waits for its workers' jobs;
   * one still running after `timeoutMs` is aborted and failed (abandoned, like a worker's).
   */
  private async settleStartedHere(timeoutMs: number): Promise<void> {
    const running = [...this.startedHere.entries()];
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => {
        resolve("timeout");
      }, timeoutMs);
    });
    const all = Promise.all(running.map(([, entry]) => entry.settled));
    const outcome = await Promise.race([all.then(() => "settled" as const), timedOut]);
    clearTimeout(timer);
    if (outcome === "settled") return;
    for (const [jobId, entry] of running) {
      entry.abort.abort(new Error("the work queue is closing"));
      await this.boss
        .fail(this.options.queue, jobId, { message: "the work queue closed while the job ran" })
        .catch(() => undefined);
    }
  }

  /** The live instances (pg-boss's registry): one row per instance, with its last heartbeat. */
  async instances(): Promise<InstanceInfo[]> {
    const rows = await this.boss.getInstances();
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      host: row.host,
      pid: row.pid,
      live: row.live,
      lastSeenAt: new Date(row.heartbeatOn),
    }));
  }

  /**
   * Stops fetching, waits up to `timeoutMs` for running handlers (the app aborts its turns
   * first, so they finish quickly), and leaves queued jobs for the other instances.
   */
  async close(timeoutMs = 30_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopTaking();
    if (this.sweepTimer !== null) clearInterval(this.sweepTimer);
    if (this.superviseTimer !== null) clearInterval(this.superviseTimer);
    await this.settleStartedHere(timeoutMs);
    await this.sweeping;
    await this.supervising;
    await this.boss.stop({ graceful: true, timeout: timeoutMs, close: true });
  }
}
