import { describe, expect, it } from "vitest";
import type { Turn } from "./api.ts";
import { DEMO_COST_NOTE, formatTurnCost } from "./format.ts";

// A turn record as GET /v1/projects/:id/turns returns it, stubbed: only the cost fields matter.
const turn = (fields: Partial<Turn>): Turn => ({
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
  finishedAt: "2026-11-27T20:00:09.000Z",
  workspaceInstructionFiles: [],
  context: null,
  process: "cold",
  coldReason: "new_session",
  demoModel: false,
  ...fields,
});

describe("formatTurnCost", () => {
  it("shows a real model's cost as it is", () => {
    expect(formatTurnCost(turn({}))).toBe("cost $0.0498 (session total $0.0996)");
  });

  it("says beside a demo turn's cost that it is not real money", () => {
    expect(formatTurnCost(turn({ demoModel: true }))).toBe(
      `cost $0.0498 (session total $0.0996) · ${DEMO_COST_NOTE}`,
    );
    expect(DEMO_COST_NOTE).toBe("not real money — local demo model");
  });

  it("says 'unknown' for a cost the CLI did not report, and leaves out a missing total", () => {
    expect(formatTurnCost(turn({ costUsd: null, cumulativeCostUsd: null }))).toBe("cost unknown");
  });
});
