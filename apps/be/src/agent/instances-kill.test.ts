import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@talkide/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  freshPostgresDatabase,
  postgresAvailable,
  sendMessage,
  terminalEvent,
} from "../test-support/harness.ts";
import { startServiceChild, type ServiceChild } from "../test-support/service-child-process.ts";
import { processesOfTurn } from "../test-support/turn-processes.ts";

interface TurnRecord {
  id: string;
  status: string;
  error: { code: string } | null;
}

/**
 * Two backend processes on one PostgreSQL server; the one running a turn is killed with
 * SIGKILL: the turn fails by lease on the survivor, its process tree is ended, the project's
 * queue goes on, and the survivor's own live work is never touched.
 */
describe.skipIf(process.platform !== "linux" || !postgresAvailable())(
  "kill -9 of one of two instances in the middle of a turn",
  () => {
    const root = mkdtempSync(join(tmpdir(), "talkide-be-instances-kill-"));
    const release = join(root, "release");
    const children: ServiceChild[] = [];
    const leftovers: number[] = [];
    let dropDatabase: () => Promise<void>;
    let databaseUrl: string;

    beforeAll(async () => {
      const database = await freshPostgresDatabase();
      databaseUrl = database.url;
      dropDatabase = () => database.dispose();
    });
    afterAll(async () => {
      for (const child of children) {
        child.process.kill("SIGKILL");
        await child.exited;
      }
      for (const pid of leftovers) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone, as it should be
        }
      }
      await dropDatabase();
      rmSync(root, { recursive: true, force: true });
    });

    it("fails the dead instance's turn by lease, ends its processes, and the queue goes on", async () => {
      const env = (name: string): Record<string, string> => ({
        DATABASE_URL: databaseUrl,
        TALKIDE_WORKSPACES_DIR: join(root, "workspaces"),
        TALKIDE_CLAUDE_CONFIG_DIR: join(root, "claude"),
        TALKIDE_INSTANCE_LEASE_SECONDS: "10",
        TALKIDE_CLAUDE_ENV_PASSTHROUGH: "FAKE_CLAUDE_RUN,FAKE_CLAUDE_STATE_DIR",
        FAKE_CLAUDE_STATE_DIR: join(root, "fake-claude-state"),
        // Until the release file exists, the "agent" starts a helper outside its process
        // group and hangs: a turn with a descendant a process-group kill would not reach.
        FAKE_CLAUDE_RUN: `[ -f '${release}' ] || { setsid sleep 300 >/dev/null 2>&1 & sleep 300; }`,
        TALKIDE_LOG_LEVEL: "info",
        INSTANCE: name,
      });
      const first = await startServiceChild(join(root, "data-a"), env("a"));
      children.push(first);
      const token = (await first.waitFor(/TALKIDE_TOKEN=(tkbe_\S+)/))[1] ?? "";
      const second = await startServiceChild(join(root, "data-b"), env("b"));
      children.push(second);

      const posted = await api<{ turn: { id: string } }>(
        second,
        token,
        "POST",
        "/v1/projects/1/messages",
        { text: "start something long" },
      );
      expect(posted.status).toBe(202);
      const turnId = posted.body.turn.id;
      const running = await waitFor(async () => {
        const pids = await processesOfTurn(turnId);
        return pids.length >= 2 ? pids : null;
      }, "the turn's processes to start");
      leftovers.push(...running);
      const runsOnFirst = first.output().includes(`"turnId":"${turnId}","projectId":1`);
      const [victim, survivor] = runsOnFirst ? [first, second] : [second, first];

      // A message queued behind the running turn, on the survivor.
      const queued = await api<{ turn: { id: string } }>(
        survivor,
        token,
        "POST",
        "/v1/projects/1/messages",
        { text: "and then this" },
      );
      expect(queued.status).toBe(202);
      writeFileSync(release, "");
      victim.process.kill("SIGKILL");
      expect(await victim.exited).toEqual({ code: null, signal: "SIGKILL" });

      const settled = await waitFor(async () => {
        const list = await api<{ turns: TurnRecord[] }>(
          survivor,
          token,
          "GET",
          "/v1/projects/1/turns",
        );
        const turns = list.body.turns;
        return turns.every((t) => t.status === "succeeded" || t.status === "failed") ? turns : null;
      }, "both turns to settle");
      expect(settled.map((t) => [t.id, t.status, t.error?.code ?? null]).sort()).toEqual(
        [
          [turnId, "failed", "instance_lease_expired"],
          [queued.body.turn.id, "succeeded", null],
        ].sort(),
      );
      // The dead instance's process tree (claude and its setsid helper) is gone.
      expect(await processesOfTurn(turnId)).toEqual([]);
      // The queue goes on: a new message runs on the survivor.
      const next = await sendMessage(survivor, token, 1, "still there?");
      expect(terminalEvent(next.events).event).toBe("turn.succeeded");
    });
  },
);
