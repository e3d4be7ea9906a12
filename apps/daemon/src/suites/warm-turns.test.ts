import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheReuse } from "@talkide/claude-cli";
import { readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import { engineDb, listSessions, recordSuccess, runsOf } from "@talkide/turn-engine";
import { afterEach, describe, expect, it } from "vitest";
import type { DaemonEvent } from "../events/bus.ts";
import {
  alive,
  makeDelivery,
  makeTempDir,
  readLines,
  removeDir,
  startTestDaemon,
  waitFor,
  type TestDaemon,
} from "../test-support/harness.ts";

/**
 * Warm turns in the daemon (issue 15), with the fake CLI: a conversation's next delivery goes
 * to its kept process while nothing it read changed, the current turn's values reach the
 * agent's `ticlawk` through the session's env file, and every reason a turn starts cold is on
 * its record.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanups.splice(0).reverse()) await step();
});

async function setup(config: { warmProcesses?: number } = {}) {
  const dir = await makeTempDir();
  cleanups.push(() => removeDir(dir));
  const scenarioFile = join(dir, "scenario");
  const log = join(dir, "ticlawk.log");
  // A stand-in for the message service's CLI: it notes the turn values it was run with.
  const entry = join(dir, "ticlawk-entry.mjs");
  writeFileSync(
    entry,
    `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(log)}, \`\${process.env.TICLAWK_MESSAGE_ID} \${process.env.TICLAWK_TURN_ID}\\n\`);\n`,
  );
  const td = await startTestDaemon({
    dataDir: dir,
    config: { ticlawkEntry: entry, ...config },
    childEnv: {
      FAKE_CLAUDE_RECORD: join(dir, "records.jsonl"),
      FAKE_CLAUDE_STATE_DIR: join(dir, "fake-claude"),
      FAKE_CLAUDE_SCENARIO_FILE: scenarioFile,
      // The agent's work: it answers through `ticlawk`.
      FAKE_CLAUDE_RUN: "ticlawk",
    },
  });
  cleanups.push(() => td.stop());
  await td.api.registerAgent("ava", join(dir, "ws"));
  const records = () => readFakeClaudeRecords(join(dir, "records.jsonl"));
  return { dir, td, scenarioFile, log, records };
}

async function deliver(td: TestDaemon, conversation = "c-1") {
  const ack = await td.api.deliver("ava", makeDelivery({ conversation_id: conversation }));
  expect(ack.status).toBe(202);
  const [done] = await td.api.settled([ack.body.delivery.id]);
  if (done === undefined) throw new Error("the delivery vanished");
  const turns = await td.api.turns(`&deliveryId=${done.id}`);
  return { done, turn: turns[0] };
}

describe("warm turns in the daemon", () => {
  it("runs a conversation's next turn in its kept process, with the current turn's values in ticlawk", async () => {
    const { td, log, records, scenarioFile } = await setup();
    const first = await deliver(td);
    const second = await deliver(td);
    expect([first.turn?.process, first.turn?.coldReason]).toEqual(["cold", "new_session"]);
    expect([second.turn?.process, second.turn?.coldReason]).toEqual(["warm", null]);
    // Each turn's tokens as the CLI reported them (the fake's caching figures: the first turn
    // writes the 2,000-token prefix, the next reads it), and the session's reuse so far.
    expect([first.turn?.usage, first.turn?.sessionCacheReuse]).toEqual([
      {
        inputTokens: 100,
        cacheCreationInputTokens: 2000,
        cacheReadInputTokens: 0,
        outputTokens: 10,
      },
      0,
    ]);
    expect([second.turn?.usage, second.turn?.sessionCacheReuse]).toEqual([
      {
        inputTokens: 100,
        cacheCreationInputTokens: 200,
        cacheReadInputTokens: 2000,
        outputTokens: 10,
      },
      cacheReuse(2000, 2100 + 2300),
    ]);
    const recorded = await records();
    expect(recorded).toHaveLength(2);
    expect(recorded[1]?.pid).toBe(recorded[0]?.pid);
    // The process carries the turn that started it, as the marker both apps find leftovers by
    // and as the agent's TICLAWK_TURN_ID; ticlawk sees the turn that runs now.
    expect(recorded.map((r) => r.env["TALKIDE_TURN_ID"])).toEqual([first.turn?.id, first.turn?.id]);
    expect(recorded.map((r) => r.env["TICLAWK_TURN_ID"])).toEqual([first.turn?.id, first.turn?.id]);
    expect(await readLines(log)).toEqual([
      `${first.done.messageId} ${first.turn?.id}`,
      `${second.done.messageId} ${second.turn?.id}`,
    ]);
    // A second conversation has its own process.
    const other = await deliver(td, "c-2");
    expect(other.turn?.process).toBe("cold");
    expect(new Set((await records()).map((r) => r.pid)).size).toBe(2);
    // A turn during which the CLI turned tool search off (the fake appends the reminder line the
    // pinned CLI writes) says so on its record; the conversation's session continues.
    writeFileSync(scenarioFile, "tool_search_off\n");
    const fellBack = await deliver(td);
    rmSync(scenarioFile);
    const next = await deliver(td);
    expect([first, second, fellBack, next].map(({ turn }) => turn?.cliFallback)).toEqual([
      null,
      null,
      "tool_search_off",
      null,
    ]);
    expect(new Set([first, fellBack, next].map(({ turn }) => turn?.sessionId)).size).toBe(1);
  });

  it("tells each turn's events once and in order, cold and warm, and stores the process it ran in", async () => {
    const { td } = await setup();
    const seen: DaemonEvent[] = [];
    td.daemon.events.subscribe((event) => seen.push(event));
    const cold = await deliver(td);
    const warm = await deliver(td);
    for (const [{ done, turn }, kind] of [
      [cold, "cold"],
      [warm, "warm"],
    ] as const) {
      const own = seen.filter((e) => "deliveryId" in e && e.deliveryId === done.id);
      expect(own.map((e) => e.type)).toEqual([
        "delivery.accepted",
        "turn.started",
        "turn.process",
        "turn.succeeded",
        "delivery.completed",
      ]);
      for (const event of own) {
        if ("turnId" in event) expect(event.turnId).toBe(turn?.id);
      }
      expect(turn?.process).toBe(kind);
    }
    // Both turns' processes are found by the id of the turn that started the process.
    const ids = [cold.turn?.id ?? "", warm.turn?.id ?? ""];
    const runs = await runsOf(engineDb(td.daemon.db), ids);
    expect(ids.map((id) => [id, runs.get(id)?.process_marker])).toEqual([
      [cold.turn?.id, cold.turn?.id],
      [warm.turn?.id, cold.turn?.id],
    ]);
  });

  it("ends the process of a failed turn; the next turn starts cold and says why", async () => {
    const { td, scenarioFile, records } = await setup();
    await deliver(td);
    writeFileSync(scenarioFile, "is_error\n");
    const failed = await deliver(td);
    expect(failed.done).toMatchObject({ state: "failed", failureReason: "is_error" });
    // The engine's words for people, never the CLI's raw error text (issue 50's drift).
    const said = JSON.stringify([failed.done, failed.turn]);
    expect(said).not.toContain("Internal server error (fake)");
    expect(said).toContain("model provider");
    expect(failed.turn?.process).toBe("warm");
    writeFileSync(scenarioFile, "ok\n");
    const next = await deliver(td);
    expect([next.turn?.process, next.turn?.coldReason]).toEqual(["cold", "previous_turn_failed"]);
    const recorded = await records();
    await waitFor(
      () => Promise.resolve(alive(recorded[1]?.pid ?? 0) ? null : true),
      "the failed turn's process to exit",
    );
    expect(recorded[2]?.argv).toContain("--resume-session-at");
  });

  it("starts cold when the agent wrote an instruction file into its workspace", async () => {
    const { dir, td } = await setup();
    await deliver(td);
    expect((await deliver(td)).turn?.process).toBe("warm");
    mkdirSync(join(dir, "ws", ".claude", "rules"), { recursive: true });
    writeFileSync(join(dir, "ws", ".claude", "rules", "x.md"), "Answer in French.\n");
    const next = await deliver(td);
    expect([next.turn?.process, next.turn?.coldReason]).toEqual(["cold", "context_changed"]);
  });

  it("keeps at most the cap, and runs every turn cold with a cap of 0", async () => {
    const capped = await setup({ warmProcesses: 1 });
    await deliver(capped.td, "c-1");
    await deliver(capped.td, "c-2");
    const back = await deliver(capped.td, "c-1");
    expect([back.turn?.process, back.turn?.coldReason]).toEqual(["cold", "evicted"]);

    const off = await setup({ warmProcesses: 0 });
    await deliver(off.td);
    const again = await deliver(off.td);
    expect([again.turn?.process, again.turn?.coldReason]).toEqual(["cold", "warm_disabled"]);
  });

  it("ends a kept process within seconds once its session moved on elsewhere", async () => {
    const { td, records } = await setup();
    await deliver(td);
    const [kept] = await records();
    expect(alive(kept?.pid ?? 0)).toBe(true);
    // As another daemon's turn of this conversation would leave the session (its own ledger).
    const sessions = engineDb(td.daemon.db);
    const [session] = await listSessions(sessions, { openOnly: true, limit: 1 });
    await recordSuccess(
      sessions,
      {},
      {
        sessionId: session?.id ?? "",
        turnId: "00000000-0000-4000-8000-000000000001",
        point: {
          id: session?.claude_session_id ?? "",
          at: "00000000-0000-4000-8000-000000000000",
        },
        costUsd: null,
        transcript: null,
      },
    );
    await waitFor(
      () => Promise.resolve(alive(kept?.pid ?? 0) ? null : true),
      "the kept process to be ended",
    );
    const next = await deliver(td);
    expect([next.turn?.process, next.turn?.coldReason]).toEqual(["cold", "session_moved"]);
  });

  it("ends its kept processes when it stops", async () => {
    const { td, records } = await setup();
    await deliver(td);
    const [kept] = await records();
    expect(alive(kept?.pid ?? 0)).toBe(true);
    await td.stop();
    expect(alive(kept?.pid ?? 0)).toBe(false);
  });
});
