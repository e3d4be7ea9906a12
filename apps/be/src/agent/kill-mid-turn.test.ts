import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@talkide/service-kit/testing";
import { afterAll, describe, expect, it } from "vitest";
import { api, sendMessage, terminalEvent } from "../test-support/harness.ts";
import { startServiceChild } from "../test-support/service-child-process.ts";
import { watchdogOf } from "@talkide/claude-cli/testing";
import { processesOfTurn } from "../test-support/turn-processes.ts";

describe.skipIf(process.platform !== "linux")(
  "kill -9 of the service in the middle of a turn",
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-kill9-"));
    const leftovers: number[] = [];
    afterAll(() => {
      for (const pid of leftovers) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone, as it should be
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("ends the turn's processes with the service, even with no other instance to notice", async () => {
      const dir = join(dataDir, "alone");
      const service = await startServiceChild(dir, {
        TALKIDE_CLAUDE_ENV_PASSTHROUGH: "FAKE_CLAUDE_SCENARIO,FAKE_CLAUDE_RUN",
        FAKE_CLAUDE_SCENARIO: "hang",
        FAKE_CLAUDE_RUN: "setsid sleep 300 >/dev/null 2>&1 &",
      });
      const token = (await service.waitFor(/TALKIDE_TOKEN=(tkbe_\S+)/))[1] ?? "";
      const posted = await api<{ turn: { id: string } }>(
        service,
        token,
        "POST",
        "/v1/projects/1/messages",
        { text: "start something long" },
      );
      const turnId = posted.body.turn.id;
      leftovers.push(
        ...(await waitFor(async () => {
          const pids = await processesOfTurn(turnId);
          return pids.length >= 2 ? pids : null;
        }, "the turn's processes to start")),
      );
      service.process.kill("SIGKILL");
      expect(await service.exited).toEqual({ code: null, signal: "SIGKILL" });
      // No restart, no other instance: the service's watchdog ends claude and the helper
      // that left its process group.
      await waitFor(
        async () => ((await processesOfTurn(turnId)).length === 0 ? true : null),
        "the dead service's turn processes to end",
      );
    });

    it("ends the earlier run's processes on restart before the first turn, when the watchdog died too", async () => {
      // The "agent" starts a helper that leaves the process group (setsid), then hangs: a turn
      // that is still running, with a descendant a process-group kill would not reach.
      const first = await startServiceChild(join(dataDir, "restarted"), {
        TALKIDE_CLAUDE_ENV_PASSTHROUGH: "FAKE_CLAUDE_SCENARIO,FAKE_CLAUDE_RUN",
        FAKE_CLAUDE_SCENARIO: "hang",
        FAKE_CLAUDE_RUN: "setsid sleep 300 >/dev/null 2>&1 &",
      });
      const token = (await first.waitFor(/TALKIDE_TOKEN=(tkbe_\S+)/))[1] ?? "";
      const posted = await api<{ turn: { id: string } }>(
        first,
        token,
        "POST",
        "/v1/projects/1/messages",
        {
          text: "start something long",
        },
      );
      expect(posted.status).toBe(202);
      const turnId = posted.body.turn.id;
      // claude (the fake, hanging) and the helper it started both carry the turn id.
      const running = await waitFor(async () => {
        const pids = await processesOfTurn(turnId);
        return pids.length >= 2 ? pids : null;
      }, "the turn's processes to start");
      leftovers.push(...running);

      // The watchdog goes first (as when the machine's OOM killer takes both): only the
      // restart's own look for leftovers is left to end the turn's processes.
      const watchdog = await watchdogOf(first.process.pid ?? -1);
      expect(watchdog).not.toBeNull();
      process.kill(watchdog ?? -1, "SIGKILL");
      first.process.kill("SIGKILL");
      expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
      // The bug this guards against: the turn's processes outlive the killed service.
      expect((await processesOfTurn(turnId)).length).toBeGreaterThanOrEqual(2);

      const second = await startServiceChild(join(dataDir, "restarted"));
      try {
        // Listening means start-up is over and no turn has run yet: nothing of the old run lives.
        expect(await processesOfTurn(turnId)).toEqual([]);
        expect(second.output()).toContain("ended their processes");
        const turns = await api<{
          turns: Array<{ id: string; status: string; error: { code: string } | null }>;
        }>(second, token, "GET", "/v1/projects/1/turns");
        expect(turns.body.turns.map((t) => [t.id, t.status, t.error?.code ?? null])).toEqual([
          [turnId, "failed", "service_restarted"],
        ]);
        const next = await sendMessage(second, token, 1, "and now?");
        expect(terminalEvent(next.events).event).toBe("turn.succeeded");
      } finally {
        second.process.kill("SIGTERM");
        await second.exited;
      }
    });
  },
);
