import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { killHolderWhileRunning, until } from "./killed-holder.ts";
import {
  type DatabaseKind,
  type InstanceDatabase,
  serverSuiteCanRun,
  sharedDatabase,
  type SharedDatabase,
  releaseSharedResources,
} from "./databases.ts";
import {
  type AbandonedJob,
  type EnqueueOptions,
  QUEUE_POLICY,
  QueueFullError,
  WorkQueue,
} from "../work-queue.ts";

interface Payload {
  readonly label: string;
}

const LEASE = QUEUE_POLICY.minLeaseSeconds;

/** A promise with its resolver outside, to hold a handler until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

function enqueue(
  queue: WorkQueue<Payload>,
  key: string,
  label: string,
  limit = 100,
  options: EnqueueOptions<string> = {},
) {
  return queue.enqueue(
    key,
    limit,
    () => Promise.resolve({ data: { label }, result: label }),
    options,
  );
}

interface Instance {
  readonly queue: WorkQueue<Payload>;
  readonly database: InstanceDatabase;
}

async function openInstance(
  shared: SharedDatabase,
  queueName: string,
  concurrency?: number,
): Promise<Instance> {
  const database = await shared.open();
  const queue = await WorkQueue.open<Payload>({
    ...database,
    queue: queueName,
    leaseSeconds: LEASE,
    jobTimeoutMs: 480_000,
    ...(concurrency === undefined ? {} : { concurrency }),
  });
  return { queue, database };
}

async function closeAll(instances: readonly Instance[]): Promise<void> {
  for (const instance of instances) await instance.queue.close();
  for (const instance of instances) await instance.database.close();
}

const noAbandon = (job: AbandonedJob<Payload>): Promise<void> =>
  Promise.reject(new Error(`no job may be abandoned here, got ${job.data.label}`));

/**
 * Enqueues "orphaned" and "next" on one key, lets a real process take "orphaned" and kills it
 * with SIGKILL while it holds the job: the instance whose death the lease tests observe.
 */
async function killHolderMidJob(
  shared: SharedDatabase,
  how: "fetched" | "started at its enqueue" = "fetched",
): Promise<void> {
  const setup = await openInstance(shared, "turns");
  if (how === "fetched") await enqueue(setup.queue, "project:1", "orphaned");
  await closeAll([setup]);
  await killHolderWhileRunning(
    shared,
    "turns",
    LEASE,
    how === "fetched" ? [] : ["run-here", "project:1", "orphaned"],
  );
  const after = await openInstance(shared, "turns");
  await enqueue(after.queue, "project:1", "next");
  await closeAll([after]);
}

/** Starts working `queue`, recording what runs and what is handed over as abandoned. */
function recordingWork(queue: WorkQueue<Payload>) {
  const abandoned: Array<[string, string, string]> = [];
  const ran: string[] = [];
  const started = queue.work(
    (job) => {
      ran.push(job.data.label);
      return Promise.resolve();
    },
    (job) => {
      abandoned.push([job.key, job.data.label, job.reason]);
      return Promise.resolve();
    },
  );
  return { abandoned, ran, started };
}

/**
 * Works `queue`, recording each job's label as its handler starts; the job labelled `heldLabel`
 * holds its handler (and slot) until `held.open()`.
 */
async function holdingWork(queue: WorkQueue<Payload>, heldLabel: string) {
  const held = gate();
  const ran: string[] = [];
  await queue.work(async (job) => {
    ran.push(job.data.label);
    if (job.data.label === heldLabel) await held.promise;
  }, noAbandon);
  return { held, ran };
}

/**
 * The work queue's whole suite on one kind of database. It runs on PGlite and on a server from
 * two test files, so that vitest can run the two side by side.
 */
export function describeQueue(kind: DatabaseKind): void {
  const canRun = kind === "embedded" || serverSuiteCanRun();
  describe.skipIf(!canRun)(
    `work queue on ${kind === "embedded" ? "PGlite" : "a PostgreSQL server"}`,
    () => {
      const dropped: SharedDatabase[] = [];
      afterAll(async () => {
        for (const shared of dropped) await shared.drop();
        await releaseSharedResources();
      });
      async function fresh(): Promise<SharedDatabase> {
        const shared = await sharedDatabase(kind);
        dropped.push(shared);
        return shared;
      }

      it("runs each key's jobs one at a time in enqueue order across two instances", async () => {
        const shared = await fresh();
        const a = await openInstance(shared, "turns");
        const b = await openInstance(shared, "turns");
        const running = new Map<string, number>();
        const overlaps: string[] = [];
        const order = new Map<string, string[]>();
        const expected = new Map<string, string[]>();
        let done = 0;
        const handler = async (job: { key: string; data: Payload }): Promise<void> => {
          const now = (running.get(job.key) ?? 0) + 1;
          running.set(job.key, now);
          if (now > 1) overlaps.push(job.data.label);
          order.set(job.key, [...(order.get(job.key) ?? []), job.data.label]);
          await new Promise((resolve) => setTimeout(resolve, 30));
          running.set(job.key, (running.get(job.key) ?? 1) - 1);
          done += 1;
        };
        // Enqueues alternate between the instances, as a load balancer would spread them.
        for (let i = 0; i < 12; i += 1) {
          const key = `project:${i % 3}`;
          const label = `${key}#${i}`;
          expected.set(key, [...(expected.get(key) ?? []), label]);
          await enqueue((i % 2 === 0 ? a : b).queue, key, label);
        }
        await a.queue.work(handler, noAbandon);
        await b.queue.work(handler, noAbandon);
        await until(() => done === 12);
        expect(overlaps).toEqual([]);
        expect(order).toEqual(expected);
        await closeAll([a, b]);
      });

      it("lets other keys run while one key's job is held", async () => {
        const shared = await fresh();
        const a = await openInstance(shared, "turns");
        const held = gate();
        const finished: string[] = [];
        await a.queue.work(async (job) => {
          if (job.data.label === "held") await held.promise;
          finished.push(job.data.label);
        }, noAbandon);
        await enqueue(a.queue, "project:1", "held");
        await enqueue(a.queue, "project:1", "behind-held");
        await enqueue(a.queue, "project:2", "free");
        await until(() => finished.includes("free"));
        expect(finished).toEqual(["free"]);
        held.open();
        await until(() => finished.length === 3);
        expect(finished).toEqual(["free", "held", "behind-held"]);
        await closeAll([a]);
      });

      it("takes no further job after stopTaking, while its running handler goes on", async () => {
        const shared = await fresh();
        const a = await openInstance(shared, "turns");
        const onA = await holdingWork(a.queue, "held");
        await enqueue(a.queue, "project:1", "held");
        await until(() => onA.ran.includes("held"));
        a.queue.stopTaking();
        await enqueue(a.queue, "project:2", "later");
        const b = await openInstance(shared, "turns");
        const onB = recordingWork(b.queue);
        await onB.started;
        await until(() => onB.ran.includes("later"));
        onA.held.open();
        await closeAll([a, b]);
        expect(onA.ran).toEqual(["held"]);
        expect(onB.abandoned).toEqual([]);
      });

      it("puts back a job it fetched but had not started when stopTaking came, for another instance", async () => {
        const shared = await fresh();
        const a = await openInstance(shared, "turns", 1);
        const onA = await holdingWork(a.queue, "held");
        // "held" takes a's one slot at its enqueue; a's worker then fetches "fetched", which
        // waits for that slot (pg-boss's fetch in flight at a stop ends the same way).
        const first = await enqueue(a.queue, "project:1", "held", 5, { runHere: true });
        expect(first.runsHere).toBe(true);
        await enqueue(a.queue, "project:2", "fetched");
        for (let tries = 0; (await a.queue.length("project:2")).running === 0; tries += 1) {
          if (tries === 3000) throw new Error("a's worker did not fetch the job within a minute");
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        a.queue.stopTaking();
        onA.held.open();
        const b = await openInstance(shared, "turns");
        const onB = recordingWork(b.queue);
        await onB.started;
        await until(() => onB.ran.includes("fetched"));
        await closeAll([a, b]);
        expect(onA.ran).toEqual(["held"]);
        expect(onB.ran).toEqual(["fetched"]);
        expect(onB.abandoned).toEqual([]);
      });

      it("counts a key's lane and positions across instances and refuses past the limit", async () => {
        const shared = await fresh();
        const a = await openInstance(shared, "turns");
        const b = await openInstance(shared, "turns");
        const held = gate();
        let started = false;
        await a.queue.work(async () => {
          started = true;
          await held.promise;
        }, noAbandon);
        const first = await enqueue(a.queue, "project:7", "first", 2);
        expect(first.position).toBe(0);
        await until(() => started);
        const second = await enqueue(b.queue, "project:7", "second", 2);
        const third = await enqueue(a.queue, "project:7", "third", 2);
        expect([second.position, third.position]).toEqual([1, 2]);
        expect(await b.queue.length("project:7")).toEqual({ running: 1, waiting: 2 });
        expect(await b.queue.position("project:7", third.jobId)).toBe(2);
        expect(await a.queue.position("project:7", first.jobId)).toBe(0);
        const refused = await enqueue(b.queue, "project:7", "fourth", 2).catch(
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(QueueFullError);
        expect(refused).toMatchObject({ code: "queue_full", waiting: 2, limit: 2 });
        // Refused means nothing was written: the caller's row rolled back with the job.
        expect(await a.queue.length("project:7")).toEqual({ running: 1, waiting: 2 });
        // Another key is not limited by this one.
        expect((await enqueue(b.queue, "project:8", "other", 2)).position).toBe(0);
        held.open();
        await closeAll([a, b]);
      });

      it("keeps the order of simultaneous enqueues from several instances", async () => {
        const shared = await fresh();
        const instances: Instance[] = [];
        for (let i = 0; i < 3; i += 1) instances.push(await openInstance(shared, "turns"));
        const accepted: string[] = [];
        await Promise.all(
          Array.from({ length: 24 }, (_, i) =>
            (instances[i % 3] as Instance).queue.enqueue("project:1", 100, () => {
              // Runs under the key's lock: the order of these calls is the order of the lane.
              accepted.push(`m${i}`);
              return Promise.resolve({ data: { label: `m${i}` }, result: null });
            }),
          ),
        );
        const ran: string[] = [];
        for (const instance of instances) {
          await instance.queue.work((job) => {
            ran.push(job.data.label);
            return Promise.resolve();
          }, noAbandon);
        }
        await until(() => ran.length === 24);
        expect(ran).toEqual(accepted);
        await closeAll(instances);
      });

      // The four lease tests below wait out a real lease each (pg-boss's minimum, 10 s), on a
      // database of their own, side by side, so the file waits out about one lease instead of
      // four. A lease is renewed every quarter lease, which leaves three quarters of a lease
      // (7.5 s) against a busy event loop; on PGlite the databases share this test's thread, and
      // what blocks it longest, a PGlite start, takes 1–2 s of it.
      // The lease of a running job is renewed while its handler runs, whether a worker fetched
      // the job or its enqueue started it here (runHere).
      it.concurrent.for(["fetched", "started at its enqueue"] as const)(
        "never touches a live instance's job (%s) when another instance starts",
        async (how, { expect }) => {
          const shared = await fresh();
          const a = await openInstance(shared, "turns");
          const held = gate();
          let started = false;
          let finished = false;
          await a.queue.work(async () => {
            started = true;
            await held.promise;
            finished = true;
          }, noAbandon);
          const taken = await a.queue.enqueue(
            "project:1",
            5,
            () => Promise.resolve({ data: { label: "live" }, result: null }),
            { runHere: how === "started at its enqueue" },
          );
          expect(taken.runsHere).toBe(how === "started at its enqueue");
          await until(() => started);
          // A second instance starts, sweeps, and waits past a whole lease: the job stays a's.
          const b = await openInstance(shared, "turns");
          await b.queue.work(() => Promise.reject(new Error("b must not run a's job")), noAbandon);
          await new Promise((resolve) => setTimeout(resolve, (LEASE + 3) * 1000));
          await b.queue.sweep();
          expect(await b.queue.length("project:1")).toEqual({ running: 1, waiting: 0 });
          held.open();
          await until(() => finished);
          await closeAll([a, b]);
        },
      );

      for (const how of ["fetched", "started at its enqueue"] as const) {
        it.concurrent(
          `fails a killed instance's job (${how}) by lease and lets the key's lane go on`,
          async ({ expect }) => {
            const shared = await fresh();
            await killHolderMidJob(shared, how);
            const survivor = await openInstance(shared, "turns");
            const { abandoned, ran, started } = recordingWork(survivor.queue);
            await started;
            await until(() => ran.length === 1);
            expect(abandoned).toEqual([["project:1", "orphaned", "lease_expired"]]);
            expect(ran).toEqual(["next"]);
            const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'turns' AND state = 'failed'`.execute(
              survivor.database.kysely,
            );
            expect(rows[0]?.n).toBe(0);
            await closeAll([survivor]);
          },
        );
      }

      it("starts a job at its enqueue when its lane is empty, and queues the next one behind it", async () => {
        const shared = await fresh();
        const a = await openInstance(shared, "turns");
        const { held, ran } = await holdingWork(a.queue, "first");
        const runHere = { runHere: true };
        const first = await a.queue.enqueue(
          "project:1",
          5,
          () => Promise.resolve({ data: { label: "first" }, result: null }),
          runHere,
        );
        // Taken in the enqueue's own transaction, its handler begun by the time the enqueue
        // returns: no worker fetched it.
        expect(first.runsHere).toBe(true);
        expect(ran).toEqual(["first"]);
        expect(await a.queue.length("project:1")).toEqual({ running: 1, waiting: 0 });
        const second = await a.queue.enqueue(
          "project:1",
          5,
          () => Promise.resolve({ data: { label: "second" }, result: null }),
          runHere,
        );
        expect([second.runsHere, second.position]).toEqual([false, 1]);
        held.open();
        await until(() => ran.length === 2);
        expect(ran).toEqual(["first", "second"]);
        // Both finish as jobs do: nothing is left holding or waiting in the lane.
        let unfinished = await a.queue.unfinished();
        while (unfinished.length > 0) unfinished = await a.queue.unfinished();
        await closeAll([a]);
      });

      it("never runs more handlers than its concurrency, fetched and started-here together", async () => {
        const shared = await fresh();
        const instance = await openInstance(shared, "turns", 1);
        const a = instance.queue;
        const held = gate();
        const started: string[] = [];
        let running = 0;
        let mostAtOnce = 0;
        await a.work(async (queued) => {
          running += 1;
          mostAtOnce = Math.max(mostAtOnce, running);
          started.push(queued.data.label);
          if (queued.data.label === "here") await held.promise;
          running -= 1;
        }, noAbandon);
        // The one slot goes to a job started at its enqueue; pg-boss's worker is still idle.
        const here = await a.enqueue(
          "project:1",
          5,
          () => Promise.resolve({ data: { label: "here" }, result: null }),
          { runHere: true },
        );
        expect(here.runsHere).toBe(true);
        await until(() => started.includes("here"));
        // Another key's job wakes the idle worker, which fetches it: it waits for the slot.
        await enqueue(a, "project:2", "fetched");
        for (;;) {
          if ((await a.length("project:2")).running === 1) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // Taken, and given a second to start its handler, which it must not.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(started).toEqual(["here"]);
        held.open();
        await until(() => started.length === 2 && running === 0);
        expect(started).toEqual(["here", "fetched"]);
        expect(mostAtOnce).toBe(1);
        await closeAll([instance]);
      });

      it("still runs a job started at its enqueue when beforeRunHere throws", async () => {
        const shared = await fresh();
        const instance = await openInstance(shared, "turns", 1);
        const a = instance.queue;
        const ran: string[] = [];
        await a.work((queued) => {
          ran.push(queued.data.label);
          return Promise.resolve();
        }, noAbandon);
        await expect(
          a.enqueue(
            "project:1",
            5,
            () => Promise.resolve({ data: { label: "taken" }, result: null }),
            {
              runHere: true,
              beforeRunHere: () => {
                throw new Error("caller's callback failed");
              },
            },
          ),
        ).rejects.toThrow("caller's callback failed");
        // The job was committed and taken: it runs, frees its slot, and the lane goes on.
        await until(() => ran.includes("taken"));
        await enqueue(a, "project:1", "next");
        await until(() => ran.length === 2);
        expect(ran).toEqual(["taken", "next"]);
        await closeAll([instance]);
      });

      it("starts nothing at its enqueue without a free slot, or before work(), or after stopTaking", async () => {
        const shared = await fresh();
        const instance = await openInstance(shared, "turns", 1);
        const a = instance.queue;
        const runHere = { runHere: true };
        const job = (label: string) => () => Promise.resolve({ data: { label }, result: null });
        // Nobody works the queue here yet: the job waits for a worker.
        expect((await a.enqueue("project:1", 5, job("early"), runHere)).runsHere).toBe(false);
        const { held, ran } = await holdingWork(a, "early");
        await until(() => ran.includes("early"));
        // The one slot is taken: another key's job is not started here either.
        expect((await a.enqueue("project:2", 5, job("full"), runHere)).runsHere).toBe(false);
        held.open();
        await until(() => ran.length === 2);
        // Taken by the enqueue, but the instance stops taking work before the handler begins
        // (as a shutdown may, while the enqueue commits): the job goes back to its lane, where
        // another instance runs it. An idle instance of its own, so that its one slot is surely
        // free (a's worker may still be finishing "full").
        const idle = await openInstance(shared, "turns", 1);
        const c = idle.queue;
        const ranOnC: string[] = [];
        await c.work((queued) => {
          ranOnC.push(queued.data.label);
          return Promise.resolve();
        }, noAbandon);
        const late = await c.enqueue("project:3", 5, job("late"), {
          runHere: true,
          beforeRunHere: () => {
            c.stopTaking();
          },
        });
        expect(late.runsHere).toBe(true);
        await until(() => ran.includes("late"));
        expect(ran).toEqual(["early", "full", "late"]);
        expect(ranOnC).toEqual([]);
        await closeAll([idle, instance]);
      });

      if (kind === "embedded") {
        it("runs no supervision pass while no job is active, and passes again and again while one is", async () => {
          const shared = await fresh();
          const instance = await openInstance(shared, "turns");
          const { held, ran } = await holdingWork(instance.queue, "long");
          // pg-boss stamps monitor_claim_on when a pass claims the queue.
          const claims = async () => {
            const { rows } = await sql<{ claimed: string | null }>`
              SELECT monitor_claim_on::text AS claimed FROM pgboss.queue WHERE name = 'turns'`.execute(
              instance.database.kysely,
            );
            return rows[0]?.claimed ?? null;
          };
          // Idle for more than a whole lease: a pass would have come every third of it.
          await new Promise((resolve) => setTimeout(resolve, (LEASE + 1) * 1000));
          expect(await claims()).toBeNull();
          await enqueue(instance.queue, "project:1", "long");
          await until(() => ran.includes("long"));
          // Two passes while the job runs. The timer ticks every third of the lease; each pass
          // is given a whole lease here, so that a busy machine cannot fail the test.
          const nextClaim = async (previous: string | null): Promise<string | null> => {
            const deadline = Date.now() + LEASE * 1000;
            for (;;) {
              const claimed = await claims();
              if (claimed !== previous) return claimed;
              if (Date.now() > deadline) throw new Error("no supervision pass within a lease");
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
          };
          await nextClaim(await nextClaim(null));
          held.open();
          await closeAll([instance]);
        });

        it("installs pg-boss's tables ahead of a first open, with no queue and no instance", async () => {
          const shared = await fresh();
          const database = await shared.open();
          if (database.connection.kind !== "embedded") throw new Error("embedded only");
          await WorkQueue.install(database.connection.pglite);
          await WorkQueue.install(database.connection.pglite);
          const { rows } = await sql<{ queues: number; instances: number }>`
            SELECT (SELECT count(*)::int FROM pgboss.queue) AS queues,
                   (SELECT count(*)::int FROM pgboss.instance) AS instances`.execute(
            database.kysely,
          );
          expect(rows[0]).toEqual({ queues: 0, instances: 0 });
          await database.close();
          const instance = await openInstance(shared, "turns");
          const { ran, started } = recordingWork(instance.queue);
          await started;
          await enqueue(instance.queue, "project:1", "first");
          await until(() => ran.length === 1);
          await closeAll([instance]);
        });

        it("reclaims a dead process's job at once after a restart, without waiting out the lease", async () => {
          const shared = await fresh();
          await killHolderMidJob(shared, "started at its enqueue");
          const restarted = await openInstance(shared, "turns");
          // What every app calls before work() (the backend and the daemon).
          expect(await restarted.queue.reclaimAtStart()).toBe(1);
          const { abandoned, ran, started } = recordingWork(restarted.queue);
          await started;
          // The first sweep runs inside work(): the job is recorded before the lane goes on.
          expect(abandoned).toEqual([["project:1", "orphaned", "owner_restarted"]]);
          await until(() => ran.length === 1);
          expect(ran).toEqual(["next"]);
          await closeAll([restarted]);
        });
      } else {
        it("refuses to reclaim on a server, where live instances own the active jobs", async () => {
          const shared = await fresh();
          const instance = await openInstance(shared, "turns");
          await expect(instance.queue.reclaimAfterRestart()).rejects.toThrow(
            /embedded database only/,
          );
          await closeAll([instance]);
        });

        it("reclaims nothing at start on a server: a live instance's job stays its own", async () => {
          const shared = await fresh();
          const a = await openInstance(shared, "turns");
          const { held, ran } = await holdingWork(a.queue, "live");
          await enqueue(a.queue, "project:1", "live");
          await until(() => ran.length === 1);
          const b = await openInstance(shared, "turns");
          expect(await b.queue.reclaimAtStart()).toBe(0);
          const { rows } = await sql<{ state: string }>`
            SELECT state FROM pgboss.job WHERE name = 'turns'`.execute(b.database.kysely);
          expect(rows.map((row) => row.state)).toEqual(["active"]);
          held.open();
          await closeAll([a, b]);
        });
      }
    },
  );
}
