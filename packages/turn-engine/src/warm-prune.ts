import type { WarmProcessPool } from "@talkide/claude-cli";
import type { TurnHost } from "./host.ts";

/**
 * How often kept processes are checked against their sessions: a process whose session moved
 * on (its next turn ran on another instance, or the session ended) is ended within seconds
 * instead of waiting out its idle timeout, and its memory is not held for a session it can
 * no longer continue.
 */
export const WARM_PRUNE_EVERY_MS = 5_000;

/**
 * The stage that runs beside the turns for as long as the host serves: keeps the warm pool in
 * step with the sessions the host stores. Returns what stops it.
 */
export function pruneMovedWarmProcesses(
  pool: Pick<WarmProcessPool, "pruneMovedEvery">,
  host: Pick<TurnHost, "sessionPoints" | "log">,
): () => void {
  return pool.pruneMovedEvery(WARM_PRUNE_EVERY_MS, (keys) => host.sessionPoints(keys), {
    onEnded: (ended) => {
      host.log.info({ ended }, "ended warm processes whose session moved on");
    },
    onError: (error) => {
      host.log.warn({ err: error }, "could not check warm processes against their sessions");
    },
  });
}
