/**
 * What a service took while it started (a database, a queue, a listening server, a child
 * process), given back in the reverse order when it stops, or when a later step of the start
 * fails: whatever started last is stopped first, so nothing still running uses something
 * already closed. Each step runs once; a step that fails is reported and the next still runs,
 * so one broken close does not leave the rest open.
 */
export class Cleanups {
  readonly #steps: Array<() => Promise<void> | void> = [];
  readonly #onError: (error: unknown) => void;
  #closing: Promise<void> | null = null;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** A step to run at stop, before every step pushed earlier. */
  push(step: () => Promise<void> | void): void {
    this.#steps.push(step);
  }

  /** Runs every step, last pushed first; a second call waits for the first run. */
  close(): Promise<void> {
    this.#closing ??= this.#runAll();
    return this.#closing;
  }

  async #runAll(): Promise<void> {
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}
