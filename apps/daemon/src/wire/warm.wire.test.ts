import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  REAL_CLAUDE_PATH,
  realClaudeEnv,
  realClaudeSuiteCanRun,
  startFakeMessagesApi,
  type FakeMessagesApi,
} from "@talkide/claude-cli/testing";
import { wholeTurnTranscript } from "@talkide/claude-cli";
import { buildInboundWakePrompt, parseDelivery } from "@talkide/prompts";
import { engineDb, listSessions, loadTranscript, recordSuccess } from "@talkide/turn-engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  makeDelivery,
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";

const canRun = realClaudeSuiteCanRun("The daemon's warm-turn wire suite");

/**
 * Issue 15 at the wire, with the pinned CLI: a delivery that runs in the conversation's kept
 * ("warm") process and one that runs in a new ("cold") process resuming the session at the
 * same point send the same request except for the new message. The cold turn is made by
 * putting the session back where the warm turn started (its row and stored transcript),
 * restarting the daemon (which ends its kept processes) and delivering the same message
 * under a new id.
 */
describe.skipIf(!canRun)("the daemon at the wire: warm and cold turns of the same state", () => {
  let dir: string;
  let api: FakeMessagesApi;
  const running: TestDaemon[] = [];

  beforeAll(async () => {
    dir = await makeTempDir();
    await mkdir(join(dir, "home", "tmp"), { recursive: true });
    api = await startFakeMessagesApi({ reply: () => ({ text: "Noted." }) });
  });
  afterAll(async () => {
    for (const td of running) await td.stop().catch(() => undefined);
    await api.close();
    await removeDir(dir);
  });

  it("sends the same request, the new message aside", async () => {
    const home = join(dir, "home");
    const start = async () => {
      const td = await startTestDaemon({
        dataDir: join(dir, "daemon"),
        config: { claudePath: REAL_CLAUDE_PATH ?? "", concurrency: 1, turnTimeoutMs: 120_000 },
        childBaseEnv: realClaudeEnv({
          baseUrl: api.url,
          home,
          extra: { TMPDIR: join(home, "tmp"), CLAUDE_CODE_MAX_RETRIES: "0" },
        }),
        killGraceMs: 2000,
      });
      running.push(td);
      return td;
    };
    const deliver = async (td: TestDaemon, delivery: Record<string, unknown>) => {
      const before = api.requests.length;
      const ack = await td.api.deliver("ava", delivery);
      expect(ack.status).toBe(202);
      const [done] = await td.api.settled([ack.body.delivery.id]);
      expect(done?.state).toBe("completed");
      const [turn] = await td.api.turns(`&deliveryId=${ack.body.delivery.id}`);
      return { turn, requests: api.requests.slice(before) };
    };

    let td = await start();
    await td.api.registerAgent("ava", join(dir, "ws"));
    const first = await deliver(td, makeDelivery({ conversation_id: "c-w", text: "Word one." }));
    expect(first.turn?.process).toBe("cold");
    const { db } = td.daemon;
    const sessions = engineDb(db);
    const [session] = await listSessions(sessions, { limit: 1 });
    if (session === undefined) throw new Error("no session after the first turn");
    const transcript = await loadTranscript(sessions, session.id);
    if (transcript === null) throw new Error("no transcript after the first turn");

    const message = makeDelivery({ conversation_id: "c-w", text: "Word two." });
    const warm = await deliver(td, message);
    expect(warm.turn?.process).toBe("warm");

    // Back to the state after the first turn, in a daemon that keeps no process.
    // (A success stored whole, by a writer whose ledger knows nothing: the warm turn's part goes.)
    await recordSuccess(
      sessions,
      {},
      {
        sessionId: session.id,
        turnId: "00000000-0000-4000-8000-000000000001",
        point: { id: transcript.sessionId, at: session.resume_at_message_id },
        costUsd: null,
        transcript: wholeTurnTranscript(transcript),
      },
    );
    await td.stop();
    td = await start();
    const again = { ...message, id: `${String(message["id"])}-again` };
    const cold = await deliver(td, again);
    expect([cold.turn?.process, cold.turn?.coldReason]).toEqual(["cold", "no_warm_process"]);

    const masked = (bodies: readonly string[], delivery: Record<string, unknown>) => {
      const text = buildInboundWakePrompt(parseDelivery(delivery)).text;
      const escaped = JSON.stringify(text).slice(1, -1);
      return bodies.map((body) => {
        expect(body).toContain(escaped);
        return body.split(escaped).join("<THE NEW MESSAGE>");
      });
    };
    expect(warm.requests.length).toBeGreaterThan(0);
    expect(
      masked(
        cold.requests.map((r) => r.rawBody),
        again,
      ),
    ).toEqual(
      masked(
        warm.requests.map((r) => r.rawBody),
        message,
      ),
    );
  });
});
