// The daemon's prompt-cache scenario for `cache-cost.bench.ts`: an in-process daemon (as its
// wire tests start it) running the real pinned `claude` CLI against the caching stand-in
// Messages API, whose clock the scenario moves. Each step is one delivery; the stand-in's
// ledger says what its requests read, wrote and left uncached.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  lastUserPrompt,
  REAL_CLAUDE_PATH,
  realClaudeEnv,
  startFakeMessagesApi,
  type CostStep,
  type FakeReply,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { buildInboundWakePrompt, parseDelivery } from "@talkide/prompts";
import { makeDelivery, startTestDaemon, type TestDaemon } from "../test-support/harness.ts";

/** Between two messages of a brisk conversation: well inside the 5-minute TTL. */
const BRISK_GAP_MS = 20_000;

/** The model's answer to a wake prompt: a few sentences, as an answer to a short message is. */
function answerTo(prompt: string): string {
  const word = /\((bench\d+)\)/.exec(prompt)?.[1] ?? "message";
  return `Looked into it (${word}): the login form posts the old field name, so the session cookie is never set. I will fix the form, add a test and report back in the thread.`;
}

/**
 * Two agents of one daemon (the same standing prompt, a workspace each), a few deliveries to
 * each, then a restart of the daemon on the same data directory and more deliveries.
 */
export async function daemonScenario(root: string): Promise<CostStep[]> {
  if (REAL_CLAUDE_PATH === null) {
    throw new Error(
      "The pinned claude binary (@anthropic-ai/claude-code) is not installed: run `pnpm install` in the repository root.",
    );
  }
  const claudePath = REAL_CLAUDE_PATH;
  let now = Date.UTC(2026, 10, 28, 9, 0, 0);
  const fake = await startFakeMessagesApi({
    clock: () => now,
    reply: (request: RecordedRequest): FakeReply => ({
      text: answerTo(lastUserPrompt(request) ?? ""),
    }),
  });
  const home = join(root, "home");
  await mkdir(join(home, "tmp"), { recursive: true });
  const start = (): Promise<TestDaemon> =>
    startTestDaemon({
      dataDir: join(root, "daemon"),
      config: { claudePath, concurrency: 1, turnTimeoutMs: 180_000 },
      childBaseEnv: realClaudeEnv({
        baseUrl: fake.url,
        home,
        extra: { TMPDIR: join(home, "tmp"), CLAUDE_CODE_MAX_RETRIES: "0" },
      }),
      killGraceMs: 2000,
    });

  let sequence = 0;
  /** Per agent, the answer of its conversation's last turn (new to the next request). */
  const lastAnswer = new Map<string, string>();
  const steps: CostStep[] = [];
  const deliver = async (td: TestDaemon, agent: string, label: string): Promise<void> => {
    now += BRISK_GAP_MS;
    sequence += 1;
    const delivery = makeDelivery({
      id: `cache-bench-${sequence}`,
      seq: sequence,
      conversation_id: `c-${agent}`,
      text: `@${agent} could you look at the login bug again? (bench${sequence})`,
    });
    const ledgerBefore = fake.cacheLedger().length;
    const ack = await td.api.deliver(agent, delivery);
    if (ack.status !== 202)
      throw new Error(`${label}: delivery refused: ${JSON.stringify(ack.body)}`);
    const [done] = await td.api.settled([ack.body.delivery.id]);
    if (done?.state !== "completed") throw new Error(`${label}: ${JSON.stringify(done)}`);
    const entries = fake.cacheLedger().slice(ledgerBefore);
    const prompt = buildInboundWakePrompt(parseDelivery(delivery)).text;
    const main =
      entries
        .filter((e) => lastUserPrompt(fake.requests[e.requestIndex] as RecordedRequest) === prompt)
        .at(-1) ?? null;
    if (main === null) throw new Error(`${label}: no answered request carried the delivery`);
    const previous = lastAnswer.get(agent);
    lastAnswer.set(agent, answerTo(prompt));
    steps.push({
      label,
      entries,
      main,
      newTexts:
        steps.length === 0 ? "all" : [prompt, ...(previous === undefined ? [] : [previous])],
    });
  };

  let td = await start();
  try {
    await td.api.registerAgent("ava", join(root, "ws-ava"));
    await td.api.registerAgent("bo", join(root, "ws-bo"));
    await deliver(td, "ava", "agent 1: first delivery (new session)");
    for (let i = 1; i <= 3; i += 1) await deliver(td, "ava", `agent 1: warm turn ${i}`);
    await deliver(td, "bo", "agent 2: first delivery (new session, the same standing prompt)");
    for (let i = 1; i <= 2; i += 1) await deliver(td, "bo", `agent 2: warm turn ${i}`);
    await td.stop();
    td = await start();
    await deliver(td, "ava", "restart: agent 1 resumed");
    await deliver(td, "bo", "restart: agent 2 resumed");
    await deliver(td, "ava", "agent 1: warm turn");
    return steps;
  } finally {
    await td.stop();
    await fake.close();
  }
}
