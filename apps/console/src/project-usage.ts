import { onMounted, onUnmounted, shallowRef, type ShallowRef } from "vue";
import type { Api, ProjectUsage } from "./api.ts";

export interface ProjectSpending {
  /** The last figures read; null until the first answer (or when the service has none). */
  readonly usage: ShallowRef<ProjectUsage | null>;
  /** Reads the figures again (a turn ended, the stream reconnected). */
  refresh(): void;
}

/**
 * `task`, run so that calls while it runs make one more run after it, never one each: a
 * reconnecting stream replays many finished turns at once, and each asks for the totals.
 */
export function coalescing(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  // Calls so far: a run that ends with more calls than it started after runs once more.
  let calls = 0;
  return async function run(): Promise<void> {
    calls += 1;
    if (running !== null) return running;
    running = (async () => {
      try {
        let served: number;
        do {
          served = calls;
          await task();
        } while (calls !== served);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}

/**
 * What the project, and you over all your projects, spent today and this month, read from
 * `GET /v1/projects/:id/usage` at mount and whenever `refresh` is called.
 */
export function useProjectUsage(api: Api, projectId: number): ProjectSpending {
  const usage = shallowRef<ProjectUsage | null>(null);
  let alive = true;
  const read = coalescing(async () => {
    try {
      const now = await api.usage(projectId);
      if (alive) usage.value = now;
    } catch {
      // The last figures stay on screen; the next turn's end or reconnection reads again
      // (lost access is the API's listener's to notice).
    }
  });

  onMounted(() => void read());
  onUnmounted(() => {
    alive = false;
  });
  return { usage, refresh: () => void read() };
}
