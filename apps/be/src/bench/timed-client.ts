/**
 * The benchmark's client in a thread of its own: it posts a message and reads the turn's
 * event stream, stamping each event when its bytes arrive. A real client (a browser, another
 * service) is another process; in the service's thread it would wait behind whatever the
 * service does next (the embedded database runs there too) and count that as the service's.
 * Stamps are on this (main) thread's `performance.now()` clock.
 */
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import type { SseEvent } from "../test-support/harness.ts";

export interface TimedEvent extends SseEvent {
  /** When the client read the chunk carrying the event. */
  readonly at: number;
}

interface Request {
  readonly url: string;
  readonly token: string;
  readonly projectId: number;
  readonly text: string;
}

interface Reply {
  readonly sent: number;
  readonly events: Array<SseEvent & { at: number }>;
  readonly error?: string;
}

export class TimedClient {
  private readonly worker = new Worker(new URL("./timed-client.worker.ts", import.meta.url));

  /** Posts `text` and reads the whole event stream; times on this thread's clock. */
  message(request: Request): Promise<{ sent: number; events: TimedEvent[] }> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => {
        reject(error);
      };
      this.worker.once("error", onError);
      this.worker.once("message", (reply: Reply) => {
        this.worker.off("error", onError);
        if (reply.error !== undefined) {
          reject(new Error(reply.error));
          return;
        }
        // The worker stamps absolute times (its own origin plus its clock): back to ours.
        const local = (absolute: number): number => absolute - performance.timeOrigin;
        resolve({
          sent: local(reply.sent),
          events: reply.events.map((event) => ({ ...event, at: local(event.at) })),
        });
      });
      this.worker.postMessage(request);
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
