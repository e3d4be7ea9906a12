import {
  claimRunnableDeliveries,
  failDelivery,
  type ClaimedDelivery,
} from "../store/deliveries.ts";
import { executeDelivery, type TurnContext } from "./execute-delivery.ts";

/**
 * Runs deliveries as turns: at most `concurrency` at once overall, one at a time per
 * (agent, conversation), in acceptance order within a conversation.
 *
 * The database decides what may run (`claimRunnableDeliveries` moves rows from accepted to
 * running, and refuses a second running delivery in a conversation); this class only keeps
 * the number of turns in flight under the cap and asks again whenever something changes:
 * a delivery was accepted, a turn ended, or the periodic tick (which also picks up rows
 * another process wrote to a shared server database).
 */
export class Scheduler {
  readonly #ctx: TurnContext;
  readonly #concurrency: number;
  readonly #running = new Map<string, Promise<void>>();
  readonly #abort = new AbortController();
  #pumping: Promise<void> | null = null;
  #wanted = false;
  #stopped = true;
  #tick: NodeJS.Timeout | null = null;

  constructor(
    ctx: TurnContext,
    options: { readonly concurrency: number; readonly tickMs?: number },
  ) {
    this.#ctx = ctx;
    this.#concurrency = options.concurrency;
    this.#tickMs = options.tickMs ?? 2000;
  }

  readonly #tickMs: number;

  get runningCount(): number {
    return this.#running.size;
  }

  get concurrency(): number {
    return this.#concurrency;
  }

  start(): void {
    this.#stopped = false;
    this.#tick = setInterval(() => {
      this.kick();
    }, this.#tickMs);
    this.#tick.unref();
    this.kick();
  }

  /** Asks the scheduler to look for runnable deliveries now. Cheap; safe to call often. */
  kick(): void {
    if (this.#stopped) return;
    this.#wanted = true;
    if (this.#pumping !== null) return;
    this.#pumping = this.#pump().finally(() => {
      this.#pumping = null;
      if (this.#wanted && !this.#stopped) this.kick();
    });
  }

  async #pump(): Promise<void> {
    while (this.#takeWanted()) {
      while (!this.#stopped && this.#running.size < this.#concurrency) {
        const free = this.#concurrency - this.#running.size;
        let claimed: readonly ClaimedDelivery[];
        try {
          claimed = await claimRunnableDeliveries(this.#ctx.db, free);
        } catch (error) {
          // The database is unavailable; the periodic tick tries again.
          this.#ctx.logger.error({ err: error }, "could not claim deliveries");
          return;
        }
        for (const delivery of claimed) this.#launch(delivery);
        // Fewer than asked for: nothing else is runnable until something changes.
        if (claimed.length < free) break;
      }
    }
  }

  /** Whether someone asked for a look since the last one; resets the request. */
  #takeWanted(): boolean {
    const wanted = this.#wanted && !this.#stopped;
    this.#wanted = false;
    return wanted;
  }

  #launch(delivery: ClaimedDelivery): void {
    const run = executeDelivery(this.#ctx, delivery, this.#abort.signal)
      .catch(async (error: unknown) => {
        // A bug or a database failure inside the turn: the delivery must not stay running
        // forever, and its reason must say what happened.
        this.#ctx.logger.error(
          { err: error, deliveryId: delivery.id },
          "turn crashed inside the daemon",
        );
        const message = error instanceof Error ? error.message : String(error);
        await failDelivery(
          this.#ctx.db,
          delivery.id,
          "internal_error",
          `The daemon failed running this turn: ${message}`,
        ).catch(() => undefined);
      })
      .finally(() => {
        this.#running.delete(delivery.id);
        this.kick();
      });
    this.#running.set(delivery.id, run);
  }

  /**
   * Stops claiming, aborts the turns in flight (their deliveries go back in line, see
   * `executeDelivery`) and waits for them to be recorded.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#tick !== null) clearInterval(this.#tick);
    this.#abort.abort();
    await this.#pumping;
    await Promise.allSettled([...this.#running.values()]);
  }
}
