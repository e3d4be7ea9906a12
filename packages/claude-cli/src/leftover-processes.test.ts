import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { killLeftoverProcesses } from "./leftover-processes.ts";

async function waitFor<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 500; i += 1) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function countCarrying(variable: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir("/proc")) {
    const env = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    if (env.split("\0").includes(variable)) count += 1;
  }
  return count;
}

describe.skipIf(process.platform !== "linux")("killLeftoverProcesses", () => {
  it("kills every process carrying the turn id, children included, and nothing else", async () => {
    const sleeper = (turnId: string) =>
      spawn("/bin/sh", ["-c", "sleep 60 & wait"], {
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", TEST_TURN_ID: turnId },
        detached: true,
        stdio: "ignore",
      });
    const target = sleeper("turn-a");
    const bystander = sleeper("turn-b");
    const targetPid = target.pid ?? 0;
    const bystanderPid = bystander.pid ?? 0;
    try {
      // Wait until the shell has started its `sleep` child (two processes carry turn-a).
      const result = await waitFor(async () => {
        const count = await countCarrying("TEST_TURN_ID=turn-a");
        return count >= 2 ? count : null;
      }, "the orphan's child to start");
      expect(result).toBeGreaterThanOrEqual(2);

      const { supported, killed } = await killLeftoverProcesses(["TEST_TURN_ID"], ["turn-a"]);
      expect(supported).toBe(true);
      expect(killed).toContain(targetPid);
      expect(killed.length).toBeGreaterThanOrEqual(2);
      // When it returns, nothing carrying the marker lives any more (a caller says so next).
      expect(await countCarrying("TEST_TURN_ID=turn-a")).toBe(0);
      await waitFor(() => Promise.resolve(alive(targetPid) ? null : true), "the orphan to die");
      expect(alive(bystanderPid)).toBe(true);
    } finally {
      try {
        process.kill(-bystanderPid, "SIGKILL");
      } catch {
        // already gone
      }
      try {
        process.kill(-targetPid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });

  it("recognises a marker under each of its names, and only those", async () => {
    // An older release marked its processes with another name: both are leftovers of turn-c.
    const marked = (variable: string) =>
      spawn("sleep", ["60"], {
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", [variable]: "turn-c" },
        detached: true,
        stdio: "ignore",
      });
    const current = marked("TEST_TURN_ID");
    const older = marked("TEST_OLD_TURN_ID");
    const other = marked("TEST_OTHER_TURN_ID");
    const pids = [current.pid ?? 0, older.pid ?? 0, other.pid ?? 0];
    try {
      await waitFor(async () => {
        const carrying = await Promise.all(
          ["TEST_TURN_ID", "TEST_OLD_TURN_ID", "TEST_OTHER_TURN_ID"].map((v) =>
            countCarrying(`${v}=turn-c`),
          ),
        );
        return carrying.every((n) => n === 1) ? true : null;
      }, "the three processes to start");
      const { killed } = await killLeftoverProcesses(
        ["TEST_TURN_ID", "TEST_OLD_TURN_ID"],
        ["turn-c"],
      );
      expect([...killed].sort()).toEqual([pids[0], pids[1]].sort());
      await waitFor(
        () => Promise.resolve(alive(pids[0] ?? 0) || alive(pids[1] ?? 0) ? null : true),
        "both to die",
      );
      expect(alive(pids[2] ?? 0)).toBe(true);
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

  it("does nothing for no values", async () => {
    expect(await killLeftoverProcesses(["TEST_TURN_ID"], [])).toEqual({
      supported: true,
      killed: [],
    });
  });
});
