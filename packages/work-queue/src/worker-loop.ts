import type { AbandonedJob, QueuedJob, WorkQueue } from "./work-queue.ts";

export interface WorkerLoopOptions<T extends object> {
  readonly queue: WorkQueue<T>;
  /**
   * Runs one job (a turn, a delivery) to its end and records its outcome itself: a failed turn
   * is a finished job. `signal` aborts when the loop stops or the queue takes the job away (its
   * lease was lost).
   */
  readonly run: (job: QueuedJob<T>, signal: AbortSignal) => Promise<void>;
  /**
   * Records a job whose instance died, whose previous process was killed (reclaimed at start)
   * or whose handler threw; may run more than once for one job, so it must be idempotent.
   */
  readonly abandoned: (job: AbandonedJob<T>) => Promise<void>;
  /**
   * Given: an error thrown by `run` is handed here and the job still finishes, so its lane goes
   * on. Not given: the job is abandoned (`handler_failed`) and `abandoned` records it.
   */
  readonly runFailed?: (job: QueuedJob<T>, error: unknown) => void | Promise<void>;
}

/**
 * The loop from the work queue to the hosts' turns, once for every app: reclaims what a killed
 * process left running, runs the queue's jobs on this instance (the queue claims them, keeps
 * their leases and caps how many run at once), hands abandoned jobs to the host, and on the way
 * out takes no further job before it aborts the running ones, waits for them and closes the
 * queue. The host passes what a job runs and how an abandonment is recorded.
 */
export class WorkerLoop<T extends object> {
  readonly #options: WorkerLoopOptions<T>;
  readonly #abort = new AbortController();
  readonly #running = new Set<Promise<void>>();
  #stopping: Promise<void> | null = null;

  constructor(options: WorkerLoopOptions<T>) {
    this.#options = options;
  }

  /** Jobs running on this instance now. */
  get running(): number {
    return this.#running.size;
  }

  /** True from the first {@link stop}: the host refuses new work. */
  get stopping(): boolean {
    return this.#stopping !== null;
  }

  /**
   * Starts taking jobs. On the embedded database the jobs a killed process left running are
   * reclaimed first (the queue's `reclaimAtStart`; a second call finds none), so the first
   * sweep records them as abandoned before any job runs.
   */
  async start(): Promise<void> {
    const { queue, abandoned } = this.#options;
    await queue.reclaimAtStart();
    await queue.work((job, signal) => this.#track(job, signal), abandoned);
  }

  async #track(job: QueuedJob<T>, jobSignal: AbortSignal): Promise<void> {
    const run = this.#runOne(job, AbortSignal.any([this.#abort.signal, jobSignal]));
    this.#running.add(run);
    try {
      await run;
    } finally {
      this.#running.delete(run);
    }
  }

  async #runOne(job: QueuedJob<T>, signal: AbortSignal): Promise<void> {
    const { run, runFailed } = this.#options;
    if (runFailed === undefined) {
      await run(job, signal);
      return;
    }
    try {
      await run(job, signal);
    } catch (error) {
      await runFailed(job, error);
    }
  }

  /**
   * Takes no further job, aborts the running ones (each host records an aborted job as it
   * does), waits for them to settle and closes the queue; waiting jobs stay for the other
   * instances or the next start. Idempotent.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      // First no new job, then abort: a job an aborted run puts back in its lane must wait for
      // another instance (or the next start), not start here again with an aborted signal.
      this.#options.queue.stopTaking();
      this.#abort.abort();
      await Promise.allSettled([...this.#running]);
      await this.#options.queue.close();
    })();
    return this.#stopping;
  }
}
