import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { watchdogOf } from "@talkide/claude-cli/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Backend } from "@talkide/service-kit/testing";
import { startChildDaemon, type ChildDaemon } from "./child-daemon.ts";
import { alive, makeDelivery, makeTempDir, readLines, removeDir, waitFor } from "./harness.ts";

/**
 * The daemon as its own process, killed with SIGKILL in the middle of turns and started
 * again on the same data: every accepted delivery ends completed or failed with a reason, and
 * a delivery never runs twice at the same time (the killed run's processes are gone before it
 * runs again). On a server the killed run's turns are taken back once their leases expire; on
 * the embedded database, which admits one process, the start takes them back at once
 * (`service_restarted`), as the backend does (its agent/kill-mid-turn.test.ts and
 * context/crash.test.ts; the rule is the work queue's `reclaimAtStart`).
 */
export function defineCrashSuite(backend: Backend): void {
  const recovery =
    backend.name === "pglite"
      ? {
          reason: "service_restarted",
          log: "recovered a delivery the daemon's previous run left running",
        }
      : {
          reason: "instance_lease_expired",
          log: "recovered a delivery whose daemon stopped renewing its lease",
        };
  if (process.platform !== "linux") {
    console.warn(
      "\n*** SKIPPING the kill -9 suite: finding a killed daemon's turn processes needs Linux /proc. ***\n",
    );
  }
  describe.skipIf(!backend.available || process.platform !== "linux")(
    `kill -9 and restart (${backend.name})`,
    () => {
      const cleanups: (() => Promise<void>)[] = [];
      beforeAll(() => backend.setup(), 60_000);
      // Each test's daemons stop when it ends (an idle daemon's queue keeps working its database).
      afterEach(async () => {
        for (const step of cleanups.splice(0).reverse()) await step();
      });
      afterAll(() => backend.teardown());

      async function setup() {
        const dir = await makeTempDir();
        cleanups.push(() => removeDir(dir));
        const databaseUrl = await backend.newDatabase();
        const log = join(dir, "turns.log");
        const pids = join(dir, "pids");
        const base = {
          ...(databaseUrl === null ? {} : { DATABASE_URL: databaseUrl }),
          // The shortest lease: a killed daemon's turns are taken back after it expires.
          TALKIDE_DAEMON_LEASE_SECONDS: "10",
          FAKE_CLAUDE_STATE_DIR: join(dir, "fake-claude"),
        };
        // The first run's turns hang in their work (a shell that sleeps) until killed.
        const hanging = (alsoFirst: string) => ({
          ...base,
          FAKE_CLAUDE_RUN: `. "$TICLAWK_TURN_ENV_FILE"; mkdir -p "${pids}"; echo $$ > "${pids}/$TICLAWK_TURN_ID"; ${alsoFirst}echo "start $TICLAWK_MESSAGE_ID $TICLAWK_TURN_ID" >> "${log}"; sleep 120; echo "end $TICLAWK_MESSAGE_ID $TICLAWK_TURN_ID" >> "${log}"`,
        });
        const hangingRun = hanging("");
        // A first run whose turns also start a helper marked only as a daemon of 0.2.x marked
        // its processes (TICLAWK_TURN_ID, without TALKIDE_TURN_ID): the kind of leftover an
        // upgraded daemon meets after the previous release was killed, and must still find.
        const hangingRunWithOldMarker = hanging(
          `env -u TALKIDE_TURN_ID sleep 120 & echo $! > "${pids}/$TICLAWK_TURN_ID.previous-release"; `,
        );
        const quickRun = {
          ...base,
          FAKE_CLAUDE_RUN: `. "$TICLAWK_TURN_ENV_FILE"; echo "start $TICLAWK_MESSAGE_ID $TICLAWK_TURN_ID" >> "${log}"; echo "end $TICLAWK_MESSAGE_ID $TICLAWK_TURN_ID" >> "${log}"`,
        };
        const start = async (env: Record<string, string>): Promise<ChildDaemon> => {
          const daemon = await startChildDaemon(dir, env);
          cleanups.push(async () => {
            daemon.process.kill("SIGKILL");
            await daemon.exited;
          });
          return daemon;
        };
        return { dir, log, pids, hangingRun, hangingRunWithOldMarker, quickRun, start };
      }

      it("loses no accepted delivery and never runs one twice at the same time", async () => {
        const { dir, log, pids, hangingRunWithOldMarker, quickRun, start } = await setup();
        const first = await start({ ...hangingRunWithOldMarker, TALKIDE_DAEMON_CONCURRENCY: "2" });
        await first.api.registerAgent("ava", join(dir, "ws"));
        const a = makeDelivery({ conversation_id: "c-1" });
        const b = makeDelivery({ conversation_id: "c-1" });
        const c = makeDelivery({ conversation_id: "c-2" });
        const ids: string[] = [];
        for (const d of [a, b, c]) {
          const ack = await first.api.deliver("ava", d);
          expect(ack.status).toBe(202);
          ids.push(ack.body.delivery.id);
        }
        await waitFor(
          async () => ((await readLines(log)).length >= 2 ? true : null),
          "two turns to be running",
        ).catch(async (error: unknown) => {
          // Say what the daemon was doing: a bare timeout here once cost a CI run its answer.
          const seen = await first.api.deliveries().catch(() => "unreadable");
          throw new Error(
            `${String(error)}\nturn log: ${JSON.stringify(await readLines(log))}\ndeliveries: ${JSON.stringify(seen)}\ndaemon log (last 30): ${JSON.stringify(first.logs.slice(-30))}`,
          );
        });
        const before = await first.api.deliveries();
        const stateOf = (list: typeof before, messageId: unknown) =>
          list.find((x) => x.messageId === messageId)?.state;
        expect([
          stateOf(before, a["id"]),
          stateOf(before, b["id"]),
          stateOf(before, c["id"]),
        ]).toEqual(["running", "accepted", "running"]);
        const orphanPids = await Promise.all(
          (await readdir(pids)).map(async (f) =>
            Number((await readFile(join(pids, f), "utf8")).trim()),
          ),
        );
        // Two turns, each a shell and its helper marked the previous release's way.
        expect(orphanPids).toHaveLength(4);

        // The watchdog goes first (as when the machine's OOM killer takes both; a lone
        // daemon's watchdog is tested in orphan-watchdog.test.ts): only the recovery and the
        // next daemon's look for leftovers remain to end the turns' processes.
        const watchdog = await watchdogOf(first.process.pid ?? -1);
        expect(watchdog).not.toBeNull();
        process.kill(watchdog ?? -1, "SIGKILL");
        first.process.kill("SIGKILL");
        expect((await first.exited).signal).toBe("SIGKILL");
        // The killed daemon's turns live on (their process groups are detached from it).
        expect(orphanPids.every(alive)).toBe(true);

        const second = await start(quickRun);
        const settled = await second.api.settled(ids);
        const byMessage = (id: unknown) => settled.find((d) => d.messageId === id);
        expect(byMessage(a["id"])).toMatchObject({ state: "completed", attempts: 2 });
        expect(byMessage(b["id"])).toMatchObject({ state: "completed", attempts: 1 });
        expect(byMessage(c["id"])).toMatchObject({ state: "completed", attempts: 2 });
        // The previous run's processes were killed before the deliveries ran again, by the
        // daemon that took them back: those marked TICLAWK_TURN_ID only too.
        expect(orphanPids.some(alive)).toBe(false);
        const recovered = second.logs.filter((l) => l["msg"] === recovery.log);
        expect(recovered.map((l) => l["reason"])).toEqual([recovery.reason, recovery.reason]);
        for (const line of recovered) {
          expect(line).toMatchObject({ interruptedTurns: 1, outcome: "requeued" });
          expect(Number(line["killedProcesses"])).toBeGreaterThanOrEqual(1);
        }

        const turnsOfA = (await second.api.delivery(byMessage(a["id"])?.id ?? "")).turns.reverse();
        expect(turnsOfA.map((t) => [t.attempt, t.state, t.failureReason])).toEqual([
          [1, "interrupted", recovery.reason],
          [2, "completed", null],
        ]);
        // No killed turn ever finished its work; each delivery's work ended exactly once.
        const lines = await readLines(log);
        const interruptedTurnIds = new Set(
          (await second.api.turns()).filter((t) => t.state === "interrupted").map((t) => t.id),
        );
        expect(
          lines.filter(
            (l) => l.startsWith("end ") && interruptedTurnIds.has(l.split(" ")[2] ?? ""),
          ),
        ).toEqual([]);
        for (const d of [a, b, c]) {
          expect(lines.filter((l) => l.startsWith(`end ${String(d["id"])} `))).toHaveLength(1);
        }
        second.process.kill("SIGTERM");
        expect(await second.exited).toEqual({ code: 0, signal: null });
      }, 300_000);

      it("fails a delivery with reason interrupted once it was interrupted the allowed number of times", async () => {
        const { dir, log, hangingRun, quickRun, start } = await setup();
        const first = await start(hangingRun);
        await first.api.registerAgent("bo", join(dir, "ws"));
        const ack = await first.api.deliver("bo", makeDelivery());
        await waitFor(
          async () => ((await readLines(log)).length >= 1 ? true : null),
          "the turn to be running",
        );
        first.process.kill("SIGKILL");
        await first.exited;

        const second = await start({ ...quickRun, TALKIDE_DAEMON_MAX_ATTEMPTS: "1" });
        const [failed] = await second.api.settled([ack.body.delivery.id]);
        expect(failed).toMatchObject({
          state: "failed",
          failureReason: "interrupted",
          attempts: 1,
        });
        expect(failed?.failureMessage).toMatch(/stopped during each of 1 attempts/);
      }, 300_000);

      it("on SIGTERM stops its turns and puts their deliveries back in line for the next start", async () => {
        const { dir, log, hangingRun, quickRun, start } = await setup();
        const first = await start(hangingRun);
        await first.api.registerAgent("cy", join(dir, "ws"));
        const ack = await first.api.deliver("cy", makeDelivery());
        await waitFor(
          async () => ((await readLines(log)).length >= 1 ? true : null),
          "the turn to be running",
        );
        first.process.kill("SIGTERM");
        expect(await first.exited).toEqual({ code: 0, signal: null });

        const second = await start(quickRun);
        const [done] = await second.api.settled([ack.body.delivery.id]);
        expect(done).toMatchObject({ state: "completed", attempts: 2 });
        const turns = (await second.api.delivery(ack.body.delivery.id)).turns.reverse();
        expect(turns.map((t) => t.state)).toEqual(["interrupted", "completed"]);
      }, 300_000);
    },
  );
}
