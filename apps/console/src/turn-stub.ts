import type { Turn } from "./api.ts";

/** A turn as GET /v1/projects/:id/turns returns it, for unit tests: `fields` override it. */
export function stubTurn(fields: Partial<Turn> = {}): Turn {
  return {
    id: "t1",
    projectId: 1,
    number: 1,
    memberId: "m1",
    status: "succeeded",
    resumed: false,
    sessionId: "s1",
    sessionReset: null,
    message: "Ahoj",
    resultText: "Ahoj Anno.",
    error: null,
    costUsd: 0.0498,
    cumulativeCostUsd: 0.0996,
    createdAt: "2026-11-27T20:00:00.000Z",
    startedAt: "2026-11-27T20:00:01.000Z",
    finishedAt: "2026-11-27T20:00:04.100Z",
    workspaceInstructionFiles: [],
    context: null,
    process: "cold",
    coldReason: "new_session",
    demoModel: false,
    usage: null,
    cacheMiss: null,
    sessionCacheReuse: null,
    cliFallback: null,
    author: "Anna",
    stoppedBy: null,
    notes: [],
    ...fields,
  };
}
