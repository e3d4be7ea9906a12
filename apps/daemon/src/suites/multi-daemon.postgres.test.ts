import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresBackend } from "@talkide/service-kit/testing";
import { startChildDaemon, type ChildDaemon } from "../test-support/child-daemon.ts";
import {
  alive,
  makeDelivery,
  makeTempDir,
  readLines,
  removeDir,
  waitFor,
} from "../test-support/harness.ts";

/**
 * Two daemons, each its own process with its own data directory, on one PostgreSQL server
 * database: they share the work queue, so a conversation runs one turn at a time in
 * acceptance order whichever daemon took the delivery, no delivery runs twice, a daemon that
 * starts leaves the other's live turn alone, and a daemon killed with SIGKILL mid-turn loses
 * its turn by lease while the conversation goes on on the other daemon.
 */
const backend = postgresBackend("The daemon's PostgreSQL server suites");

describe.skipIf(!backend.available || process.platform !== "linux")(
  "two daemons on one server database",
  () => {
    const cleanups: (() => Promise<void>)[] = [];
    beforeAll(() => backend.setup(), 120_000);
    // Each test's daemons stop when it ends (an idle daemon's queue keeps working its database).
    afterEach(async () => {
      for (const step of cleanups.splice(0).reverse()) await step();
    });
    afterAll(() => backend.teardown());

    async function setup() {
      const root = await makeTempDir();
      cleanups.push(() => removeDir(root));
      const databaseUrl = await backend.newDatabase();
      if (databaseUrl === null) throw new Error("the postgres backend gave no database");
      const log = join(root, "turns.log");
      const pids = join(root, "pids");
      const hold = join(root, "hold");
      await mkdir(pids);
      // Every turn logs its start and end with its conversation and message; a message whose
      // id starts with "held" keeps its turn busy while the hold file exists.
      const run = [
        // The turn's current values, as the agent's `ticlawk` reads them (a warm process keeps
        // the environment of the turn that started it).
        `. "$TICLAWK_TURN_ENV_FILE"`,
        `echo $$ > "${pids}/$TICLAWK_TURN_ID"`,
        `echo "start $TICLAWK_CONVERSATION_ID $TICLAWK_MESSAGE_ID $TICLAWK_TURN_ID" >> "${log}"`,
        `case "$TICLAWK_MESSAGE_ID" in held*) while [ -e "${hold}" ]; do sleep 0.1; done;; *) sleep 0.05;; esac`,
        `echo "end $TICLAWK_CONVERSATION_ID $TICLAWK_MESSAGE_ID $TICLAWK_TURN_ID" >> "${log}"`,
      ].join("; ");
      const env = {
        DATABASE_URL: databaseUrl,
        TALKIDE_DAEMON_LEASE_SECONDS: "10",
        // One fake runtime for both daemons: what the CLI would find in a shared config dir.
        FAKE_CLAUDE_STATE_DIR: join(root, "fake-claude"),
        FAKE_CLAUDE_RUN: run,
      };
      const start = async (name: string): Promise<ChildDaemon> => {
        const daemon = await startChildDaemon(join(root, name), { ...env, TALKIDE_HOST_ID: name });
        cleanups.push(async () => {
          daemon.process.kill("SIGKILL");
          await daemon.exited;
        });
        return daemon;
      };
      return { root, log, pids, hold, start };
    }

    it("runs each conversation one turn at a time, in order, once, in one session, over both daemons", async () => {
      const { root, log, start } = await setup();
      const a = await start("daemon-a");
      const b = await start("daemon-b");
      await a.api.registerAgent("ava", join(root, "ws"));
      const conversations = ["c-1", "c-2", "c-3"];
      const sent: { id: string; messageId: string; conversation: string }[] = [];
      for (let i = 0; i < 12; i += 1) {
        const conversation = conversations[i % 3] ?? "c-1";
        const delivery = makeDelivery({ conversation_id: conversation });
        const ack = await (i % 2 === 0 ? a : b).api.deliver("ava", delivery);
        expect(ack.status).toBe(202);
        sent.push({ id: ack.body.delivery.id, messageId: String(delivery["id"]), conversation });
      }
      const settled = await a.api.settled(sent.map((s) => s.id));
      expect(settled.map((d) => [d.state, d.attempts])).toEqual(
        settled.map(() => ["completed", 1]),
      );

      const lines = await readLines(log);
      for (const conversation of conversations) {
        const mine = lines.filter((l) => l.split(" ")[1] === conversation);
        // Strictly alternating start/end of the same turn: never two at once.
        for (let i = 0; i < mine.length; i += 2) {
          const [startLine, endLine] = [mine[i] ?? "", mine[i + 1] ?? ""];
          expect(startLine.startsWith("start ")).toBe(true);
          expect(endLine).toBe(startLine.replace(/^start /, "end "));
        }
        // Each message ran once, in the order it was accepted.
        expect(mine.filter((l) => l.startsWith("start ")).map((l) => l.split(" ")[2])).toEqual(
          sent.filter((s) => s.conversation === conversation).map((s) => s.messageId),
        );
        // One session, never forked: each turn resumed what the previous one reported.
        const turns = (await a.api.turns("&agentId=ava"))
          .filter((t) => t.conversationId === conversation)
          .reverse();
        expect(turns).toHaveLength(4);
        expect(new Set(turns.map((t) => t.sessionId)).size).toBe(1);
        expect(turns[0]?.resumedRuntimeSessionId).toBeNull();
        for (let i = 1; i < turns.length; i += 1) {
          expect(turns[i]?.resumedRuntimeSessionId).toBe(turns[i - 1]?.runtimeSessionId);
        }
      }
      // Both daemons ran turns (a daemon logs each turn it starts).
      const ran = (d: ChildDaemon) => d.logs.filter((l) => l["msg"] === "turn.started").length;
      expect(ran(a) + ran(b)).toBe(12);
    }, 300_000);

    it("leaves a live turn alone when a daemon starts, and takes it back by lease when its daemon is killed", async () => {
      const { root, log, pids, hold, start } = await setup();
      await writeFile(hold, "");
      const a = await start("daemon-a");
      await a.api.registerAgent("bo", join(root, "ws"));
      const held = await a.api.deliver(
        "bo",
        makeDelivery({ id: "held-1", conversation_id: "c-1" }),
      );
      await waitFor(
        async () => ((await readLines(log)).length >= 1 ? true : null),
        "the held turn to run on daemon A",
      );
      const [turnFile] = await readdir(pids);
      const heldPid = Number((await readFile(join(pids, turnFile ?? ""), "utf8")).trim());

      // B starts while A's turn runs, takes deliveries and runs another conversation's turn.
      const b = await start("daemon-b");
      const next = await b.api.deliver("bo", makeDelivery({ conversation_id: "c-1" }));
      const other = await b.api.deliver("bo", makeDelivery({ conversation_id: "c-2" }));
      await b.api.settled([other.body.delivery.id]);
      // A's live turn was not touched, and its conversation's next delivery waits behind it.
      expect(alive(heldPid)).toBe(true);
      const during = await b.api.deliveries();
      const stateOf = (id: string) => during.find((d) => d.id === id);
      expect(stateOf(held.body.delivery.id)).toMatchObject({ state: "running", attempts: 1 });
      expect(stateOf(next.body.delivery.id)).toMatchObject({ state: "accepted" });

      a.process.kill("SIGKILL");
      expect((await a.exited).signal).toBe("SIGKILL");
      // After A's lease expired, B failed its turn, killed its process and went on.
      await b.api.settled([next.body.delivery.id]);
      expect(alive(heldPid)).toBe(false);
      // The requeued delivery goes back to the end of its lane: once the waiting one is done,
      // its second attempt may already be running (held on the same file). The first attempt
      // is the one A lost, and no third one exists.
      const turnsOfHeld = await b.api.turns(`&deliveryId=${held.body.delivery.id}`);
      expect(
        turnsOfHeld
          .filter((t) => t.attempt === 1)
          .map((t) => [t.attempt, t.state, t.failureReason]),
      ).toEqual([[1, "interrupted", "instance_lease_expired"]]);
      expect(turnsOfHeld.map((t) => t.attempt).sort()).toEqual(
        turnsOfHeld.length === 1 ? [1] : [1, 2],
      );
      expect(
        b.logs.find(
          (l) => l["msg"] === "recovered a delivery whose daemon stopped renewing its lease",
        ),
      ).toMatchObject({ reason: "instance_lease_expired", outcome: "requeued" });

      // The held delivery runs again, once, after the one that was waiting behind it.
      await rm(hold);
      const [again] = await b.api.settled([held.body.delivery.id]);
      expect(again).toMatchObject({ state: "completed", attempts: 2 });
      const starts = (await readLines(log))
        .filter((l) => l.startsWith("start c-1 "))
        .map((l) => l.split(" ")[2]);
      expect(starts).toEqual(["held-1", next.body.delivery.messageId, "held-1"]);
      // The killed turn never finished its work.
      expect((await readLines(log)).filter((l) => l.startsWith("end c-1 held-1 "))).toHaveLength(1);
    }, 300_000);
  },
);
