import { allInputTokens } from "@talkide/claude-cli";
import { createLogger } from "@talkide/service-kit";
import { chooseSession, engineDb, pinnedTo, runsOf, sessionById } from "@talkide/turn-engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDelivery, removeDir, type TestDaemon } from "../../test-support/harness.ts";
import { migrateDaemonBefore, startOnEarlierSchema } from "../../test-support/earlier-schema.ts";
import { insertReleaseRows, releaseRows } from "../../test-support/release-rows.ts";
import {
  expectRunsHoldTheirTurns,
  turnsAsListed,
  viewAt0009,
  type TurnViewAt0009,
} from "../../test-support/migrated-turns.ts";

// Migration 0010 on the rows the release at dbd4985 really wrote (`release-rows.ts`), migrated
// to 0009 first as a daemon of the release before this one left them: every turn's run is the
// engine's, the turns list as they did, and the open session goes on where it was.

const open = (
  releaseRows("sessions") as unknown as readonly {
    id: string;
    conversation_id: string;
    runtime_session_id: string | null;
    standing_prompt_version: string;
    cumulative_cost_usd: number | null;
  }[]
).find((s) => s.conversation_id === "c-one" && s.runtime_session_id !== null);
if (open?.runtime_session_id == null) throw new Error("the fixture changed");

describe("migration 0010 on the rows the release at dbd4985 wrote", () => {
  let dir: string;
  let td: TestDaemon | undefined;
  const running = (): TestDaemon => {
    if (td === undefined) throw new Error("the daemon did not start on the release's database");
    return td;
  };
  /** The turns' rows at 0009, newest first, and the daemon's JSON of them then. */
  let before: readonly Record<string, unknown>[] = [];
  let listed: readonly TurnViewAt0009[] = [];

  beforeAll(async () => {
    ({ td, dir } = await startOnEarlierSchema({
      first: "0009",
      write: async (db, { workspace }) => {
        await insertReleaseRows(db, workspace);
        expect(await migrateDaemonBefore(db, "0010")).toEqual([
          "engine/0001-sessions",
          "engine/0002-runs",
          "daemon/0009-engine-sessions",
        ]);
        before = await turnsAsListed(db);
        // What GET /v1/turns answered at 0009: its rows, through the same view.
        listed = before.map(viewAt0009);
      },
      logger: createLogger("t", "error"),
    }));
  });

  afterAll(async () => {
    await td?.stop();
    await removeDir(dir);
  });

  it("gives every turn a run holding what its row held", async () => {
    expect(before).toHaveLength(releaseRows("turns").length);
    await expectRunsHoldTheirTurns(running().daemon.db, before);
  });

  it("lists every turn as the daemon did before: all of them, by session and by delivery", async () => {
    const api = running().api;
    const json = (views: readonly TurnViewAt0009[]) => views;
    expect(await api.turns("&agentId=ava")).toEqual(json(listed));
    for (const sessionId of new Set(listed.map((turn) => turn.sessionId)))
      expect(await api.turns(`&sessionId=${sessionId}`)).toEqual(
        json(listed.filter((turn) => turn.sessionId === sessionId)),
      );
    for (const { deliveryId } of listed)
      expect((await api.delivery(deliveryId)).turns).toEqual(
        json(listed.filter((turn) => turn.deliveryId === deliveryId)),
      );
  });

  it("resumes the open session with the conversation's next delivery, its totals going on", async () => {
    const api = running().api;
    const db = running().daemon.db;
    const moved = await sessionById(engineDb(db), open.id);
    expect(moved && chooseSession(moved, pinnedTo(open.standing_prompt_version)).kind).toBe(
      "continue",
    );
    const last = before.find((row) => row["session_id"] === open.id);
    const ack = await api.deliver("ava", makeDelivery({ conversation_id: "c-one" }));
    expect(ack.status).toBe(202);
    const [done] = await api.settled([ack.body.delivery.id]);
    expect(done?.state).toBe("completed");
    const [turn] = await api.turns(`&deliveryId=${ack.body.delivery.id}`);
    expect(turn).toMatchObject({
      sessionId: open.id,
      resumed: true,
      resumedRuntimeSessionId: open.runtime_session_id,
      runtimeSessionId: open.runtime_session_id,
      state: "completed",
    });
    if (turn?.usage == null) throw new Error("the turn reported no tokens");
    // The session's totals so far: the migrated turns' (its last one's), then this one's.
    const run = (await runsOf(engineDb(db), [turn.id])).get(turn.id);
    expect(run).toMatchObject({ outcome: "succeeded", session_id: open.id });
    expect(Number(run?.session_input_tokens)).toBe(
      Number(last?.["session_input_tokens"]) + allInputTokens(turn.usage),
    );
    expect(Number(run?.session_cache_read_tokens)).toBe(
      Number(last?.["session_cache_read_tokens"]) + turn.usage.cacheReadInputTokens,
    );
    // Its cost charged to the session after the migrated turns' (their sum).
    const total = (open.cumulative_cost_usd ?? 0) + (turn.costUsd ?? 0);
    expect(turn.cumulativeCostUsd).toBeCloseTo(total, 10);
    const [session] = await api.sessions(`&conversationId=c-one&live=true`);
    expect(session?.cumulativeCostUsd).toBe(turn.cumulativeCostUsd);
  });
});
