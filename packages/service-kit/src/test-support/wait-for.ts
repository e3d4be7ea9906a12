/**
 * Polls until `probe` returns a value (not null). Not a timing assertion: the bound only
 * keeps a broken build from hanging, and it is far above what any step needs.
 */
export async function waitFor<T>(
  probe: () => Promise<T | null>,
  what: string,
  boundMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
