/** The first pause between two probes, and the longest one the pauses grow to. */
const FIRST_PAUSE_MS = 10;
const LONGEST_PAUSE_MS = 200;

/**
 * Polls until `probe` returns a value (not null). Not a timing assertion: the bound only
 * keeps a broken build from hanging, and it is far above what any step needs.
 *
 * The pauses grow (10 ms, then half as long again each time, up to 200 ms): most waits end
 * after a few probes, and a long one (a turn timing out, a lease expiring) no longer asks a
 * service the same question forty times a second, each probe a request and a query on a
 * machine whose two cores the other test files need.
 */
export async function waitFor<T>(
  probe: () => Promise<T | null>,
  what: string,
  boundMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + boundMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 1.5, LONGEST_PAUSE_MS);
  }
}
