import { describe, expect, it } from "vitest";
import { TASK_STATUSES } from "./schema.ts";
import { transitionError } from "./task-lifecycle.ts";

describe("task lifecycle", () => {
  it("allows exactly the forward moves, cancel from open statuses, and staying put", () => {
    const allowed = TASK_STATUSES.flatMap((from) =>
      TASK_STATUSES.filter((to) => transitionError(from, to) === null).map((to) => `${from}→${to}`),
    );
    expect(allowed).toEqual([
      "todo→todo",
      "todo→in_progress",
      "todo→in_review",
      "todo→done",
      "todo→canceled",
      "in_progress→in_progress",
      "in_progress→in_review",
      "in_progress→done",
      "in_progress→canceled",
      "in_review→in_review",
      "in_review→done",
      "in_review→canceled",
      "done→done",
      "canceled→canceled",
    ]);
  });
});
