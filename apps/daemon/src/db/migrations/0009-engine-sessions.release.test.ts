import { createHash } from "node:crypto";
import { createLogger } from "@talkide/service-kit";
import {
  chooseSession,
  engineDb,
  loadTranscript,
  pinnedTo,
  pointOfSession,
  sessionById,
} from "@talkide/turn-engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDelivery, removeDir, type TestDaemon } from "../../test-support/harness.ts";
import { startOnEarlierSchema } from "../../test-support/earlier-schema.ts";
import { insertReleaseRows, RELEASE, releaseRows } from "../../test-support/release-rows.ts";

// Migration 0009 on the rows the release at dbd4985 really wrote (`release-rows.ts`): a daemon
// of this release starts on that database.

interface OldSession {
  readonly id: string;
  readonly agent_id: string;
  readonly conversation_id: string;
  readonly runtime_session_id: string | null;
  readonly resume_at_message_id: string | null;
  readonly standing_prompt_version: string;
  readonly turn_count: number;
  readonly cumulative_cost_usd: number | null;
  readonly invalidated_at: string | null;
  readonly invalidated_reason: string | null;
}
const oldSessions = releaseRows("sessions") as unknown as readonly OldSession[];
const oldTurns = releaseRows("turns") as unknown as readonly { id: string; session_id: string }[];
/** What the release would have written back before a resume: stored content, then its parts. */
function releaseTranscript(sessionId: string): string | null {
  const header = releaseRows("session_transcripts").find((row) => row["session_id"] === sessionId);
  if (header === undefined) return null;
  const parts = releaseRows("session_transcript_parts")
    .filter((row) => row["session_id"] === sessionId)
    .sort((a, b) => Number(a["seq"]) - Number(b["seq"]))
    .map((row) => String(row["content"]));
  return String(header["content"]) + parts.join("");
}
const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

describe("migration 0009 on the rows the release at dbd4985 wrote", () => {
  let dir: string;
  let td: TestDaemon | undefined;
  const running = (): TestDaemon => {
    if (td === undefined) throw new Error("the daemon did not start on the release's database");
    return td;
  };
  const open = oldSessions.find((s) => s.conversation_id === "c-one");
  if (open?.runtime_session_id == null) throw new Error("the fixture changed");

  beforeAll(async () => {
    ({ td, dir } = await startOnEarlierSchema({
      first: "0009",
      write: async (db, { workspace, ran }) => {
        expect([...ran].sort()).toEqual([...RELEASE.migrations].sort());
        await insertReleaseRows(db, workspace);
      },
      logger: createLogger("t", "error"),
    }));
  });

  afterAll(async () => {
    await td?.stop();
    await removeDir(dir);
  });

  it("keeps every session's point, pin, count, cost and end", async () => {
    const sessions = engineDb(running().daemon.db);
    for (const old of oldSessions) {
      const moved = await sessionById(sessions, old.id);
      expect(moved).toMatchObject({
        scope: `agent:${old.agent_id}/conversation:${old.conversation_id}`,
        owner: `agent:${old.agent_id}`,
        conversation: old.conversation_id,
        pin: old.standing_prompt_version,
        turn_count: old.turn_count,
        cumulative_cost_usd: old.cumulative_cost_usd,
        end_reason: old.invalidated_reason,
      });
      expect(moved && pointOfSession(moved)).toEqual(
        old.runtime_session_id === null
          ? null
          : { id: old.runtime_session_id, at: old.resume_at_message_id },
      );
      expect(moved?.ended_at === null).toBe(old.invalidated_at === null);
    }
  });

  it("loads every stored transcript back byte for byte", async () => {
    const sessions = engineDb(running().daemon.db);
    for (const old of oldSessions) {
      const expected = releaseTranscript(old.id);
      const loaded = await loadTranscript(sessions, old.id);
      expect(loaded === null).toBe(expected === null);
      if (expected === null || loaded === null) continue;
      expect(loaded.sessionId).toBe(old.runtime_session_id);
      expect(loaded.content.length).toBe(expected.length);
      expect(sha256(loaded.content)).toBe(sha256(expected));
    }
  });

  it("keeps every turn referencing its session", async () => {
    const turns = await running().api.turns("&agentId=ava");
    expect(new Map(turns.map((turn) => [turn.id, turn.sessionId]))).toEqual(
      new Map(oldTurns.map((turn) => [turn.id, turn.session_id])),
    );
  });

  it("resumes the open session of a conversation with its next delivery", async () => {
    const sessions = engineDb(running().daemon.db);
    const moved = await sessionById(sessions, open.id);
    expect(moved && chooseSession(moved, pinnedTo(open.standing_prompt_version)).kind).toBe(
      "continue",
    );
    const ack = await running().api.deliver("ava", makeDelivery({ conversation_id: "c-one" }));
    expect(ack.status).toBe(202);
    const [done] = await running().api.settled([ack.body.delivery.id]);
    expect(done?.state).toBe("completed");
    const [turn] = await running().api.turns(`&deliveryId=${ack.body.delivery.id}`);
    expect(turn).toMatchObject({
      sessionId: open.id,
      resumed: true,
      resumedRuntimeSessionId: open.runtime_session_id,
    });
  });
});
