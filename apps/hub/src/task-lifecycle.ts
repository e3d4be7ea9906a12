import type { TaskStatus } from "./schema.ts";

/** The lifecycle order; `canceled` stands outside it and ends a task from any open status. */
const ORDER: readonly TaskStatus[] = ["todo", "in_progress", "in_review", "done"];

export function isClosed(status: TaskStatus): boolean {
  return status === "done" || status === "canceled";
}

/**
 * Whether a task may move from one status to another: forward along
 * `todo → in_progress → in_review → done` (skipping steps is allowed, going back is not), or
 * to `canceled` from any open status. `done` and `canceled` are final. Staying put is fine.
 */
export function transitionError(from: TaskStatus, to: TaskStatus): string | null {
  if (from === to) return null;
  if (isClosed(from))
    return `The task is ${from}; a finished or canceled task does not change any more.`;
  if (to === "canceled") return null;
  if (ORDER.indexOf(to) > ORDER.indexOf(from)) return null;
  return `A task moves forward along todo → in_progress → in_review → done (or to canceled); ${from} → ${to} goes back.`;
}
