import { afterAll, describe, expect, it } from "vitest";
import { killHolderWhileRunning, until } from "./test-support/killed-holder.ts";
import {
  type InstanceDatabase,
  releaseSharedResources,
  sharedDatabase,
  type SharedDatabase,
} from "./test-support/databases.ts";
import { type AbandonedJob, QUEUE_POLICY, type QueuedJob, WorkQueue } from "./work-queue.ts";
import { WorkerLoop, type WorkerLoopOptions } from "./worker-loop.ts";

interface Payload {
  readonly label: string;
}

const LEASE = QUEUE_POLICY.minLeaseSeconds;

async function openQueue(database: InstanceDatabase): Promise<WorkQueue<Payload>> {
  return WorkQueue.open<Payload>({
    ...database,
    queue: "loop",
    leaseSeconds: LEASE,
    jobTimeoutMs: 480_000,
  });
}

function enqueue(queue: WorkQueue<Payload>, key: string, label: string) {
  return queue.enqueue(key, 100, () => Promise.resolve({ data: { label }, result: label }));
}

/** A loop that records what it ran and what it was handed as abandoned. */
function recordingLoop(
  queue: WorkQueue<Payload>,
  run: WorkerLoopOptions<Payload>["run"],
  runFailed?: WorkerLoopOptions<Payload>["runFailed"],
) {
  const abandoned: Array<[string, AbandonedJob<Payload>["reason"]]> = [];
  const loop = new WorkerLoop<Payload>({
    queue,
    run,
    abandoned: (job) => {
      abandoned.push([job.data.label, job.reason]);
      return Promise.resolve();
    },
    ...(runFailed === undefined ? {} : { runFailed }),
  });
  return { loop, abandoned };
}

describe("worker loop on PGlite", () => {
  const dropped: SharedDatabase[] = [];
  afterAll(async () => {
    for (const shared of dropped) await shared.drop();
    await releaseSharedResources();
  });
  async function fresh(): Promise<SharedDatabase> {
    const shared = await sharedDatabase("embedded");
    dropped.push(shared);
    return shared;
  }

  it("stops by taking no further job, aborting the running ones and waiting for them", async () => {
    const shared = await fresh();
    const database = await shared.open();
    const queue = await openQueue(database);
    const started: string[] = [];
    const settled: string[] = [];
    const { loop, abandoned } = recordingLoop(queue, async (job, signal) => {
      started.push(job.data.label);
      // A running job ends only when the loop's stop aborts it, as a turn does.
      await new Promise<void>((resolve) => {
        signal.addEventListener(
          "abort",
          () => {
            resolve();
          },
          { once: true },
        );
      });
      settled.push(job.data.label);
    });
    await enqueue(queue, "a", "a1");
    await enqueue(queue, "a", "a2");
    await enqueue(queue, "b", "b1");
    await loop.start();
    await until(() => started.length === 2);
    expect(loop.running).toBe(2);
    expect(loop.stopping).toBe(false);
    await loop.stop();
    expect(loop.stopping).toBe(true);
    expect(loop.running).toBe(0);
    // Every started job settled before stop returned; the next of a's lane never started here.
    expect(settled.sort()).toEqual(["a1", "b1"]);
    expect(started.sort()).toEqual(["a1", "b1"]);
    expect(abandoned).toEqual([]);
    // Stopping twice is the same stop.
    await loop.stop();

    // The waiting job stays in its lane for the next start.
    const next = await openQueue(database);
    const ran: string[] = [];
    const again = recordingLoop(next, (job) => {
      ran.push(job.data.label);
      return Promise.resolve();
    });
    await again.loop.start();
    await until(() => ran.includes("a2"));
    await again.loop.stop();
    await database.close();
  });

  it("hands an error of a run to runFailed and lets the lane go on", async () => {
    const shared = await fresh();
    const database = await shared.open();
    const queue = await openQueue(database);
    const ran: string[] = [];
    const failed: Array<[string, string]> = [];
    const { loop, abandoned } = recordingLoop(
      queue,
      (job) => {
        ran.push(job.data.label);
        return job.data.label === "broken"
          ? Promise.reject(new Error("the run broke"))
          : Promise.resolve();
      },
      (job: QueuedJob<Payload>, error: unknown) => {
        failed.push([job.data.label, (error as Error).message]);
      },
    );
    await enqueue(queue, "k", "broken");
    await enqueue(queue, "k", "after");
    await loop.start();
    await until(() => ran.includes("after"));
    expect(ran).toEqual(["broken", "after"]);
    expect(failed).toEqual([["broken", "the run broke"]]);
    await loop.stop();
    expect(abandoned).toEqual([]);
    await database.close();
  });

  it("without runFailed, a run that throws is abandoned as handler_failed", async () => {
    const shared = await fresh();
    const database = await shared.open();
    const queue = await openQueue(database);
    const ran: string[] = [];
    const { loop, abandoned } = recordingLoop(queue, (job) => {
      ran.push(job.data.label);
      return job.data.label === "broken"
        ? Promise.reject(new Error("the run broke"))
        : Promise.resolve();
    });
    await enqueue(queue, "k", "broken");
    await enqueue(queue, "k", "after");
    await loop.start();
    // The queue's sweep hands the failed job over; then the lane goes on.
    await until(() => abandoned.length === 1 && ran.includes("after"));
    expect(abandoned).toEqual([["broken", "handler_failed"]]);
    await loop.stop();
    await database.close();
  });

  it("at start, records the job a killed process left running as owner_restarted", async () => {
    const shared = await fresh();
    const setup = await shared.open();
    const before = await openQueue(setup);
    await enqueue(before, "k", "orphaned");
    await before.close();
    await setup.close();
    await killHolderWhileRunning(shared, "loop", LEASE);

    const database = await shared.open();
    const queue = await openQueue(database);
    await enqueue(queue, "k", "next");
    const ran: string[] = [];
    const { loop, abandoned } = recordingLoop(queue, (job) => {
      ran.push(job.data.label);
      return Promise.resolve();
    });
    await loop.start();
    // Reclaimed at once (not after a lease), recorded first, then the lane goes on.
    expect(abandoned).toEqual([["orphaned", "owner_restarted"]]);
    await until(() => ran.includes("next"));
    expect(ran).toEqual(["next"]);
    await loop.stop();
    await database.close();
  });
});
