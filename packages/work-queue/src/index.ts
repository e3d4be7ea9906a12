export {
  ABANDONED_CODE,
  type AbandonedJob,
  type Enqueued,
  type InstanceInfo,
  type KeyLength,
  LEASE_EXPIRED,
  type QueueConnection,
  type QueuedJob,
  QueueFullError,
  QUEUE_POLICY,
  WorkQueue,
  type WorkQueueOptions,
} from "./work-queue.ts";
export { WorkerLoop, type WorkerLoopOptions } from "./worker-loop.ts";
