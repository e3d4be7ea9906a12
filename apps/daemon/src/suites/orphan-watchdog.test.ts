import { mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startChildDaemon, type ChildDaemon } from "../test-support/child-daemon.ts";
import { alive, makeDelivery, makeTempDir, removeDir, waitFor } from "../test-support/harness.ts";

/**
 * A daemon killed with SIGKILL mid-turn, with no other daemon to take its work back: the
 * turn's processes (claude and a helper that left its process group) end with it, through
 * the daemon's watchdog, not at some later restart.
 */
describe.skipIf(process.platform !== "linux")("kill -9 of a lone daemon mid-turn", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanups.reverse()) await step();
  });

  it("leaves none of the turn's processes alive", async () => {
    const root = await makeTempDir();
    cleanups.push(() => removeDir(root));
    const pids = join(root, "pids");
    await mkdir(pids);
    const daemon: ChildDaemon = await startChildDaemon(join(root, "data"), {
      FAKE_CLAUDE_STATE_DIR: join(root, "fake-claude"),
      // The "agent" records its pid and its helper's, the helper leaving the process group.
      FAKE_CLAUDE_RUN: `setsid sleep 300 >/dev/null 2>&1 & echo "$! $$" > "${pids}/turn"; sleep 300`,
    });
    cleanups.push(async () => {
      daemon.process.kill("SIGKILL");
      await daemon.exited;
    });
    await daemon.api.registerAgent("ava", join(root, "ws"));
    await daemon.api.deliver("ava", makeDelivery({ conversation_id: "c-1" }));
    const running = await waitFor(async () => {
      const files = await readdir(pids);
      if (files.length === 0) return null;
      const text = await readFile(join(pids, "turn"), "utf8");
      const found = text.split(/\s+/).filter(Boolean).map(Number);
      return found.length === 2 ? found : null;
    }, "the turn's processes to start");
    cleanups.push(() => {
      for (const pid of running) if (alive(pid)) process.kill(pid, "SIGKILL");
      return Promise.resolve();
    });
    expect(running.every(alive)).toBe(true);

    daemon.process.kill("SIGKILL");
    expect((await daemon.exited).signal).toBe("SIGKILL");
    await waitFor(
      () => Promise.resolve(running.some(alive) ? null : true),
      "the dead daemon's turn processes to end",
    );
  });
});
