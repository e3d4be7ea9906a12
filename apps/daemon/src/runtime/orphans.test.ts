import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { processesWithMarker } from "@talkide/claude-cli/testing";
import { describe, expect, it } from "vitest";
import { alive, waitFor } from "../test-support/harness.ts";
import { killOrphanedTurnProcesses } from "./orphans.ts";

/** A detached process marked as a turn's, under `variable`, as a daemon's turn would be. */
function turnProcess(variable: string, turnId: string): number {
  const child = spawn("sleep", ["120"], {
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", [variable]: turnId },
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  return child.pid ?? -1;
}

describe.skipIf(process.platform !== "linux")("killOrphanedTurnProcesses", () => {
  it("finds the turn processes of this release and those a 0.2.x daemon marked before an upgrade", async () => {
    // This release marks with TALKIDE_TURN_ID; a daemon of 0.2.x (killed, then upgraded)
    // left processes marked TICLAWK_TURN_ID only.
    const ours = randomUUID();
    const older = randomUUID();
    const live = randomUUID();
    const pids = [
      turnProcess("TALKIDE_TURN_ID", ours),
      turnProcess("TICLAWK_TURN_ID", older),
      turnProcess("TALKIDE_TURN_ID", live),
    ];
    try {
      await waitFor(async () => {
        const found = await Promise.all([
          processesWithMarker("TALKIDE_TURN_ID", ours),
          processesWithMarker("TICLAWK_TURN_ID", older),
          processesWithMarker("TALKIDE_TURN_ID", live),
        ]);
        return found.every((f) => f.length === 1) ? true : null;
      }, "the turn processes to start");

      const { supported, killed } = await killOrphanedTurnProcesses([ours, older]);
      expect(supported).toBe(true);
      expect([...killed].sort()).toEqual([pids[0], pids[1]].sort());
      await waitFor(
        async () =>
          (await processesWithMarker("TALKIDE_TURN_ID", ours)).length === 0 &&
          (await processesWithMarker("TICLAWK_TURN_ID", older)).length === 0
            ? true
            : null,
        "both abandoned turns' processes to end",
      );
      // A turn that was not abandoned keeps its process.
      expect(alive(pids[2] ?? -1)).toBe(true);
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  });
});
