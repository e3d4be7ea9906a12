/**
 * Re-checks, every few seconds while the page is visible, that this browser still has its
 * session and its projects: a session ended in another tab or by an owner removing you shows
 * here without a reload. A later event stream replaces this module; nothing else polls.
 */
export const ACCESS_POLL_INTERVAL_MS = 2_000;

export interface PollerEnvironment {
  readonly isVisible: () => boolean;
  readonly setInterval: (run: () => void, ms: number) => number;
  readonly clearInterval: (id: number) => void;
}

const browserEnvironment = (): PollerEnvironment => ({
  isVisible: () => document.visibilityState === "visible",
  setInterval: (run, ms) => window.setInterval(run, ms),
  clearInterval: (id) => {
    window.clearInterval(id);
  },
});

/**
 * Starts calling `check` every `intervalMs` while the page is visible, one check at a time
 * (a slow answer never piles up requests); returns the function that stops it.
 */
export function startAccessPoller(
  check: () => Promise<void>,
  intervalMs: number = ACCESS_POLL_INTERVAL_MS,
  environment: PollerEnvironment = browserEnvironment(),
): () => void {
  let running = false;
  const id = environment.setInterval(() => {
    if (running || !environment.isVisible()) return;
    running = true;
    check()
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  return () => {
    environment.clearInterval(id);
  };
}
