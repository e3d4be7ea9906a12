/**
 * A process that takes one job and holds it until it is killed: the instance whose death the
 * lease tests observe. Usage: node lease-holder.ts <embedded|server> <location> <queue> <lease>
 */
import { WorkQueue } from "../work-queue.ts";
import { openInstanceDatabase, type DatabaseKind } from "./databases.ts";

const [kind, location, queueName, lease] = process.argv.slice(2);
if (kind === undefined || location === undefined || queueName === undefined || lease === undefined)
  throw new Error("usage: lease-holder.ts <embedded|server> <location> <queue> <lease-seconds>");
const database = await openInstanceDatabase(kind as DatabaseKind, location);
const queue = await WorkQueue.open<{ label: string }>({
  ...database,
  queue: queueName,
  leaseSeconds: Number(lease),
  maxRunSeconds: 600,
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
