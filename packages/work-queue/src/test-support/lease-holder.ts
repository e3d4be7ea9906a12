/**
 * A process that takes one job and holds it until it is killed: the instance whose death the
 * lease tests observe. Usage: node lease-holder.ts <embedded|server> <location> <queue> <lease>
 * [run-here <key> <label>]: with `run-here`, it enqueues that job itself and starts it at its
 * enqueue (EnqueueOptions.runHere) instead of fetching one.
 */
import { WorkQueue } from "../work-queue.ts";
import { openInstanceDatabase, type DatabaseKind } from "./databases.ts";

const [kind, location, queueName, lease, mode, key, label] = process.argv.slice(2);
if (kind === undefined || location === undefined || queueName === undefined || lease === undefined)
  throw new Error("usage: lease-holder.ts <embedded|server> <location> <queue> <lease-seconds>");
const database = await openInstanceDatabase(kind as DatabaseKind, location);
const queue = await WorkQueue.open<{ label: string }>({
  ...database,
  queue: queueName,
  leaseSeconds: Number(lease),
  jobTimeoutMs: 480_000,
  concurrency: 1,
  instanceName: "lease-holder",
});
await queue.work(
  async (job) => {
    process.stdout.write(`running ${job.data.label}\n`);
    await new Promise(() => {
      // Held until the test kills this process.
    });
  },
  () => Promise.resolve(),
);
if (mode === "run-here" && key !== undefined && label !== undefined) {
  const enqueued = await queue.enqueue(
    key,
    100,
    () => Promise.resolve({ data: { label }, result: null }),
    { runHere: true },
  );
  if (!enqueued.runsHere) throw new Error(`${label} was not started at its enqueue`);
}
