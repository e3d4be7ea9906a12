import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DaemonConfig } from "../config.ts";
import type { Backend } from "@talkide/service-kit/testing";
import { makeDelivery, makeTempDir, removeDir, startTestDaemon } from "./harness.ts";

/**
 * A shell command for the fake `claude` to run during each turn: it logs `start <id>` and
 * `end <id>` around its work, so the log shows exactly which turns overlapped. With a
 * barrier, a turn waits (bounded) until `barrier` turns have started: two turns that can
 * only finish together prove they ran at the same time.
 */
function loggingTurn(
  logFile: string,
  options: { barrierDir?: string; barrier?: number; key: string },
): string {
  const id = `$${options.key}`;
  const wait =
    options.barrierDir === undefined
      ? "sleep 0.02"
      : [
          `touch "${options.barrierDir}/${id}"`,
          "i=0",
          `while [ "$(ls "${options.barrierDir}" | wc -l)" -lt ${options.barrier ?? 2} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done`,
          `[ $i -lt 600 ] || echo "barrier-timeout ${id}" >> "${logFile}"`,
        ].join("; ");
  // The turn's current values, read as the agent's `ticlawk` reads them: a kept ("warm")
  // process keeps the environment of the turn that started it.
  const current = `. "$TICLAWK_TURN_ENV_FILE"`;
  return `${current}; echo "start ${id}" >> "${logFile}"; ${wait}; echo "end ${id}" >> "${logFile}"`;
}

/** The largest number of turns running at once, from a start/end log. */
function maxOverlap(lines: readonly string[]): number {
  let running = 0;
  let max = 0;
  for (const line of lines) {
    if (line.startsWith("start ")) running += 1;
    if (line.startsWith("end ")) running -= 1;
    max = Math.max(max, running);
  }
  return max;
}

async function readLog(file: string): Promise<string[]> {
  return (await readFile(file, "utf8").catch(() => "")).split("\n").filter((l) => l !== "");
}

export function defineSchedulingSuite(backend: Backend): void {
  describe.skipIf(!backend.available)(`scheduling (${backend.name})`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    beforeAll(() => backend.setup(), 60_000);
    // Each test's daemons stop when it ends (an idle daemon's queue keeps working its database).
    afterEach(async () => {
      for (const step of cleanups.splice(0).reverse()) await step();
    });
    afterAll(() => backend.teardown());

    async function daemon(run: (dir: string) => string, config: Partial<DaemonConfig> = {}) {
      const dir = await makeTempDir();
      cleanups.push(() => removeDir(dir));
      const td = await startTestDaemon({
        dataDir: dir,
        config: { databaseUrl: await backend.newDatabase(), ...config },
        childEnv: {
          FAKE_CLAUDE_RECORD: join(dir, "records.jsonl"),
          FAKE_CLAUDE_STATE_DIR: join(dir, "fake-claude"),
          FAKE_CLAUDE_RUN: run(dir),
        },
      });
      cleanups.push(() => td.stop());
      return { td, dir, log: join(dir, "turns.log") };
    }

    it("runs 50 concurrent deliveries to one conversation one at a time, in acceptance order, in one session", async () => {
      const { td, dir, log } = await daemon(
        (d) => loggingTurn(join(d, "turns.log"), { key: "TICLAWK_MESSAGE_ID" }),
        {
          concurrency: 8,
        },
      );
      await td.api.registerAgent("alice", join(dir, "ws"));
      const deliveries = Array.from({ length: 50 }, () =>
        makeDelivery({ conversation_id: "c-busy" }),
      );
      const acks = await Promise.all(deliveries.map((d) => td.api.deliver("alice", d)));
      expect(acks.every((a) => a.status === 202)).toBe(true);
      const settled = await td.api.settled(acks.map((a) => a.body.delivery.id));
      expect(settled.every((d) => d.state === "completed" && d.attempts === 1)).toBe(true);

      const acceptanceOrder = [...settled].sort((a, b) => a.seq - b.seq).map((d) => d.messageId);
      const lines = await readLog(log);
      expect(lines).toEqual(acceptanceOrder.flatMap((id) => [`start ${id}`, `end ${id}`]));
      expect(maxOverlap(lines)).toBe(1);

      const sessions = await td.api.sessions("&agentId=alice");
      expect(sessions).toHaveLength(1);
      expect(sessions[0]).toMatchObject({ live: true, turnCount: 50 });
      // Nothing changed between the turns: the first started a process, the other 49 ran in it.
      const records = await readFakeClaudeRecords(join(dir, "records.jsonl"));
      expect(records).toHaveLength(50);
      expect(new Set(records.map((r) => r.pid)).size).toBe(1);
      expect(records[0]?.argv.includes("--resume")).toBe(false);
      const turns = (await td.api.turns("&agentId=alice")).reverse();
      expect(turns.map((t) => t.process)).toEqual(["cold", ...Array<string>(49).fill("warm")]);
    }, 300_000);

    it("runs different agents in parallel, never more than the cap at once", async () => {
      const { td, dir, log } = await daemon(
        (d) =>
          loggingTurn(join(d, "turns.log"), {
            key: "TICLAWK_AGENT_ID",
            barrierDir: join(d, "barrier"),
            barrier: 2,
          }),
        { concurrency: 2 },
      );
      await mkdir(join(dir, "barrier"));
      const agents = ["ann", "ben", "cid", "dee"];
      for (const agent of agents) await td.api.registerAgent(agent, join(dir, `ws-${agent}`));
      const acks = await Promise.all(agents.map((agent) => td.api.deliver(agent, makeDelivery())));
      const settled = await td.api.settled(acks.map((a) => a.body.delivery.id));
      expect(settled.every((d) => d.state === "completed")).toBe(true);

      const lines = await readLog(log);
      expect(lines.filter((l) => l.startsWith("barrier-timeout"))).toEqual([]);
      // The first two turns could only finish together (the barrier), and no third ran beside them.
      expect(maxOverlap(lines)).toBe(2);
      expect(lines.filter((l) => l.startsWith("start "))).toHaveLength(4);
    });

    it("runs two conversations of one agent in parallel, each in its own session", async () => {
      const { td, dir, log } = await daemon(
        (d) =>
          loggingTurn(join(d, "turns.log"), {
            key: "TICLAWK_CONVERSATION_ID",
            barrierDir: join(d, "barrier"),
            barrier: 2,
          }),
        { concurrency: 4 },
      );
      await mkdir(join(dir, "barrier"));
      await td.api.registerAgent("solo", join(dir, "ws"));
      const acks = await Promise.all(
        ["c-x", "c-y"].map((c) => td.api.deliver("solo", makeDelivery({ conversation_id: c }))),
      );
      const settled = await td.api.settled(acks.map((a) => a.body.delivery.id));
      expect(settled.every((d) => d.state === "completed")).toBe(true);
      const lines = await readLog(log);
      expect(lines.filter((l) => l.startsWith("barrier-timeout"))).toEqual([]);
      expect(maxOverlap(lines)).toBe(2);
      expect(await td.api.sessions("&agentId=solo&live=true")).toHaveLength(2);
    });

    it("keeps a busy conversation's later deliveries waiting while other conversations proceed", async () => {
      const { td, dir } = await daemon(() => "sleep 0.3", { concurrency: 4 });
      await td.api.registerAgent("max", join(dir, "ws"));
      const busy = await Promise.all(
        [1, 2, 3].map(() => td.api.deliver("max", makeDelivery({ conversation_id: "c-slow" }))),
      );
      const other = await td.api.deliver("max", makeDelivery({ conversation_id: "c-other" }));
      const [otherDone] = await td.api.settled([other.body.delivery.id]);
      expect(otherDone?.state).toBe("completed");
      // Visible through the API: the busy conversation's deliveries, never two running at once.
      const snapshot = (await td.api.deliveries("&conversationId=c-slow")).map((d) => d.state);
      expect(snapshot.filter((s) => s === "running").length).toBeLessThanOrEqual(1);
      const settled = await td.api.settled(busy.map((b) => b.body.delivery.id));
      const startedInOrder = [...settled]
        .sort((a, b) => a.seq - b.seq)
        .map((d) => d.startedAt ?? "");
      expect([...startedInOrder].sort()).toEqual(startedInOrder);
      // The other conversation did not queue behind the busy one: it started before the busy
      // conversation's second delivery could (which waited for the first to end).
      expect((otherDone?.startedAt ?? "") < (startedInOrder[1] ?? "")).toBe(true);
    });
  });
}
