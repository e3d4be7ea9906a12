import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  cacheReuse,
  type CliFallback,
  type TokenUsage,
  wholeTurnTranscript,
} from "@talkide/claude-cli";
import {
  engineDb,
  materialiseTranscript,
  openSession,
  recordSuccess,
  startSession,
  transcriptParts,
} from "@talkide/turn-engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DaemonDb } from "../db/schema.ts";
import type { TurnAccount } from "../scheduler/turn-account.ts";
import { conversationScope } from "../sessions/agent-sessions.ts";
import {
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";
import { claimDelivery, insertDelivery } from "./deliveries.ts";
import { recordTurnSuccess } from "./turn-success.ts";
import { startTurn } from "./turns.ts";

// A successful turn stores the session's transcript with the session's new point, in one
// statement: whole, or (when this daemon stored the previous one and the runtime only appended)
// as the lines it added. Whichever way, what a resume writes back is the runtime's file.
let dir: string;
let td: TestDaemon;
let db: DaemonDb;

beforeAll(async () => {
  dir = await makeTempDir();
  td = await startTestDaemon({ dataDir: join(dir, "data") });
  db = td.daemon.db;
  await td.api.registerAgent("ava", join(dir, "ws"));
});

afterAll(async () => {
  await td.stop();
  await removeDir(dir);
});

async function newSession(conversationId: string): Promise<string> {
  return (await startSession(engineDb(db), conversationScope("ava", conversationId), "v1")).id;
}

/** Stores one successful turn of the session whose runtime transcript is now `content`. */
async function succeed(
  sessionId: string,
  conversationId: string,
  runtimeSessionId: string,
  content: string,
  usage: TokenUsage | null = null,
  cliFallback: CliFallback | null = null,
  account: Partial<TurnAccount> = {},
): Promise<{ readonly turnId: string; readonly deliveryId: string }> {
  const stored = await insertDelivery(db, {
    agentId: "ava",
    messageId: randomUUID(),
    conversationId,
    reason: null,
    payload: {},
  });
  if ("unknownAgent" in stored) throw new Error("agent missing");
  const deliveryId = stored.delivery.id;
  await claimDelivery(db, deliveryId);
  const turnId = randomUUID();
  await startTurn(
    db,
    {
      id: turnId,
      deliveryId,
      sessionId,
      agentId: "ava",
      conversationId,
      attempt: 1,
      resumedRuntimeSessionId: null,
      claudeVersion: null,
    },
    { kind: "warm", coldReason: null, marker: turnId },
  );
  await recordTurnSuccess(db, {
    turnId,
    sessionId,
    deliveryId,
    agentId: "ava",
    runtimeSessionId,
    account: {
      source: usage === null ? null : "cli",
      usage,
      costUsd: null,
      requests: null,
      cacheWrite5mTokens: null,
      cacheWrite1hTokens: null,
      cacheMiss: null,
      cacheMissPhrase: null,
      ...account,
    },
    cliFallback,
    resumeAtMessageId: `msg-${turnId}`,
    events: [{ type: "result" }],
    agentMeta: { lastTurnAt: new Date().toISOString() },
    transcript: wholeTurnTranscript({ sessionId: runtimeSessionId, projectDir: "-ws", content }),
  });
  return { turnId, deliveryId };
}

/** What a resume on a fresh machine would find. */
async function materialised(sessionId: string, runtimeSessionId: string): Promise<string> {
  const configDir = join(dir, `cfg-${randomUUID()}`);
  expect(await materialiseTranscript(engineDb(db), configDir, sessionId)).toBe(true);
  return readFile(join(configDir, "projects", "-ws", `${runtimeSessionId}.jsonl`), "utf8");
}

/** The parts a full write's part was followed by: each an append (the lines a turn added). */
async function parts(sessionId: string): Promise<number> {
  return (await transcriptParts(engineDb(db), sessionId)).length - 1;
}

async function state(
  sessionId: string,
  conversationId: string,
  turnId: string,
  deliveryId: string,
) {
  const open = await openSession(engineDb(db), conversationScope("ava", conversationId).scope);
  expect(open?.id).toBe(sessionId);
  const session = {
    turn_count: open?.turn_count,
    resume_at_message_id: open?.resume_at_message_id,
    runtime_session_id: open?.claude_session_id,
  };
  const turn = await db
    .selectFrom("turns")
    .select("state")
    .where("id", "=", turnId)
    .executeTakeFirstOrThrow();
  const delivery = await db
    .selectFrom("deliveries")
    .select("state")
    .where("id", "=", deliveryId)
    .executeTakeFirstOrThrow();
  return { session, turn: turn.state, delivery: delivery.state };
}

describe("recordTurnSuccess and the stored transcript", () => {
  it("stores the first transcript whole and each later one as the lines it added", async () => {
    const sessionId = await newSession("c-grow");
    const runtime = randomUUID();
    let content = "";
    for (let turn = 1; turn <= 4; turn += 1) {
      content += `{"turn":${turn},"text":"line ü ${"x".repeat(turn * 10)}"}\n`;
      const { turnId, deliveryId } = await succeed(sessionId, "c-grow", runtime, content);
      expect(await materialised(sessionId, runtime)).toBe(content);
      expect(await parts(sessionId)).toBe(turn - 1);
      const now = await state(sessionId, "c-grow", turnId, deliveryId);
      expect(now).toEqual({
        session: {
          turn_count: turn,
          resume_at_message_id: `msg-${turnId}`,
          runtime_session_id: runtime,
        },
        turn: "completed",
        delivery: "completed",
      });
    }
    const [base] = await transcriptParts(engineDb(db), sessionId);
    expect(base?.content).toBe(content.slice(0, content.indexOf("\n") + 1));
  });

  it("writes the transcript whole, once, when another writer stored one in between", async () => {
    const sessionId = await newSession("c-moved");
    const runtime = randomUUID();
    await succeed(sessionId, "c-moved", runtime, "one\n");
    await succeed(sessionId, "c-moved", runtime, "one\ntwo\n");
    // Another daemon ran a turn of this session and stored its transcript (its own ledger).
    await recordSuccess(
      engineDb(db),
      {},
      {
        sessionId,
        turnId: randomUUID(),
        point: { id: runtime, at: null },
        costUsd: null,
        transcript: wholeTurnTranscript({
          sessionId: runtime,
          projectDir: "-ws",
          content: "elsewhere\n",
        }),
      },
    );

    const { turnId, deliveryId } = await succeed(
      sessionId,
      "c-moved",
      runtime,
      "one\ntwo\nthree\n",
    );
    expect(await materialised(sessionId, runtime)).toBe("one\ntwo\nthree\n");
    expect(await parts(sessionId)).toBe(0);
    // The refused append changed nothing: the session advanced once for this turn (after two
    // of this daemon's and the other one's).
    expect((await state(sessionId, "c-moved", turnId, deliveryId)).session.turn_count).toBe(4);
  });

  it("writes a rewritten transcript whole and drops the parts it had", async () => {
    const sessionId = await newSession("c-rewritten");
    const runtime = randomUUID();
    await succeed(sessionId, "c-rewritten", runtime, "a\n");
    await succeed(sessionId, "c-rewritten", runtime, "a\nb\n");
    expect(await parts(sessionId)).toBe(1);
    await succeed(sessionId, "c-rewritten", runtime, "A\nb\nc\n");
    expect(await parts(sessionId)).toBe(0);
    expect(await materialised(sessionId, runtime)).toBe("A\nb\nc\n");
    await succeed(sessionId, "c-rewritten", runtime, "A\nb\nc\nd\n");
    expect(await parts(sessionId)).toBe(1);
    expect(await materialised(sessionId, runtime)).toBe("A\nb\nc\nd\n");
  });

  it("starts over in a new runtime session", async () => {
    const sessionId = await newSession("c-new-runtime");
    const first = randomUUID();
    await succeed(sessionId, "c-new-runtime", first, "a\n");
    await succeed(sessionId, "c-new-runtime", first, "a\nb\n");
    const second = randomUUID();
    await succeed(sessionId, "c-new-runtime", second, "a\nb\n");
    expect(await parts(sessionId)).toBe(0);
    expect(await materialised(sessionId, second)).toBe("a\nb\n");
  });
});

describe("recordTurnSuccess and the turn's tokens", () => {
  it("stores the turn's tokens and the session's reuse so far, across an append and a whole write", async () => {
    const sessionId = await newSession("c-tokens");
    const runtime = randomUUID();
    const usage = (write: number, read: number): TokenUsage => ({
      inputTokens: 10,
      cacheCreationInputTokens: write,
      cacheReadInputTokens: read,
      outputTokens: 5,
    });
    const first = await succeed(sessionId, "c-tokens", runtime, "a\n", usage(1000, 0));
    // A turn without figures carries none and leaves the running totals where they were.
    const silent = await succeed(sessionId, "c-tokens", runtime, "a\nb\n", null);
    const third = await succeed(sessionId, "c-tokens", runtime, "a\nb\nc\n", usage(100, 1000));
    // Rewritten: stored whole, the totals go on.
    const fourth = await succeed(sessionId, "c-tokens", runtime, "A\nb\nc\nd\n", usage(50, 1100));
    // As the daemon's read API shows them.
    const byId = new Map((await td.api.turns(`&sessionId=${sessionId}`)).map((t) => [t.id, t]));
    const seen = [first, silent, third, fourth].map(({ turnId }) => {
      const turn = byId.get(turnId);
      return [turn?.usage, turn?.sessionCacheReuse];
    });
    expect(seen).toEqual([
      [usage(1000, 0), 0],
      [null, null],
      [usage(100, 1000), cacheReuse(1000, 1010 + 1110)],
      [usage(50, 1100), cacheReuse(2100, 1010 + 1110 + 1160)],
    ]);
  });

  it("stores the CLI's fallback on the turn that fell back, through an append as through a whole write", async () => {
    const sessionId = await newSession("c-fallback");
    const runtime = randomUUID();
    const before = await succeed(sessionId, "c-fallback", runtime, "a\n");
    const appended = await succeed(
      sessionId,
      "c-fallback",
      runtime,
      "a\nb\n",
      null,
      "tool_search_off",
    );
    const after = await succeed(sessionId, "c-fallback", runtime, "a\nb\nc\n");
    const whole = await succeed(sessionId, "c-fallback", runtime, "A\n", null, "tool_search_off");
    const byId = new Map((await td.api.turns(`&sessionId=${sessionId}`)).map((t) => [t.id, t]));
    expect(
      [before, appended, after, whole].map(({ turnId }) => byId.get(turnId)?.cliFallback),
    ).toEqual([null, "tool_search_off", null, "tool_search_off"]);
  });

  it("charges each turn's cost to its session (the session's total is their sum) and shows the gateway's figures", async () => {
    const sessionId = await newSession("c-cost");
    const runtime = randomUUID();
    const usage: TokenUsage = {
      inputTokens: 3,
      cacheCreationInputTokens: 1200,
      cacheReadInputTokens: 0,
      outputTokens: 7,
    };
    const gateway = (costUsd: number | null): Partial<TurnAccount> => ({
      source: "gateway",
      costUsd,
      requests: 2,
      cacheWrite5mTokens: 200,
      cacheWrite1hTokens: 1000,
      cacheMiss: { reason: "new_session", position: null, gapMs: null, ttlMs: null },
      cacheMissPhrase: "the conversation's first session",
    });
    const first = await succeed(sessionId, "c-cost", runtime, "a\n", usage, null, gateway(0.1));
    // A turn of unknown cost leaves the total where it was.
    const unknown = await succeed(sessionId, "c-cost", runtime, "a\nb\n", usage, null, {
      costUsd: null,
    });
    const third = await succeed(sessionId, "c-cost", runtime, "a\nb\nc\n", usage, null, {
      ...gateway(0.2),
      cacheMiss: { reason: "prefix_kept", position: null, gapMs: 1000, ttlMs: 3_600_000 },
      cacheMissPhrase: null,
    });
    const byId = new Map((await td.api.turns(`&sessionId=${sessionId}`)).map((t) => [t.id, t]));
    expect(
      [first, unknown, third].map(({ turnId }) => {
        const t = byId.get(turnId);
        return [t?.costUsd, t?.cumulativeCostUsd, t?.usageSource];
      }),
    ).toEqual([
      [0.1, 0.1, "gateway"],
      [null, 0.1, "cli"],
      // 0.1 + 0.2 as decimals, not 0.30000000000000004.
      [0.2, 0.3, "gateway"],
    ]);
    expect(byId.get(first.turnId)).toMatchObject({
      usage,
      requests: 2,
      cacheWrite5mTokens: 200,
      cacheWrite1hTokens: 1000,
      cacheMiss: { reason: "new_session" },
      cacheMissPhrase: "the conversation's first session",
      usageLimit: null,
    });
    expect(byId.get(third.turnId)).toMatchObject({
      cacheMiss: { reason: "prefix_kept", gapMs: 1000 },
      cacheMissPhrase: null,
    });
    const [session] = await td.api.sessions("&conversationId=c-cost");
    expect(session?.cumulativeCostUsd).toBe(0.3);
  });
});
