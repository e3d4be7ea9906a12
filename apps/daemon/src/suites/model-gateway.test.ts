import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readFakeClaudeRecords, startFakeMessagesApi } from "@talkide/claude-cli/testing";
import { limitSettings, DEFAULT_PRICES, type LimitSettings } from "@talkide/gateway";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import type { DaemonEvent } from "../events/bus.ts";
import {
  makeDelivery,
  makeTempDir,
  removeDir,
  startTestDaemon,
  waitFor,
  alive,
  type TestDaemon,
} from "../test-support/harness.ts";

/**
 * The daemon's model gateway (issue 51) with the fake CLI, which calls no provider: every
 * process gets the gateway's URL and a token of its own instead of the key, the token dies
 * with the process, and a turn over a usage limit fails before anything starts, its delivery
 * kept for a retry. (The real CLI through the gateway: wire/gateway.wire.test.ts.)
 */
const KEY = "sk-ant-api03-FAKESUITECANARY-42";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanups.splice(0).reverse()) await step();
});

async function setup(
  options: {
    limits?: LimitSettings;
    warmProcesses?: number;
    before?: (dir: string) => Promise<void>;
  } = {},
) {
  const dir = await makeTempDir();
  cleanups.push(() => removeDir(dir));
  await options.before?.(dir);
  // Nothing is forwarded in this suite, but should anything be, it reaches a fake.
  const provider = await startFakeMessagesApi({ keepCredentials: true });
  cleanups.push(() => provider.close());
  const records = join(dir, "records.jsonl");
  const start = async (limits: LimitSettings | undefined = options.limits) => {
    const td = await startTestDaemon({
      dataDir: dir,
      config: {
        warmProcesses: options.warmProcesses ?? 4,
        ...(limits === undefined ? {} : { gateway: { limits, prices: DEFAULT_PRICES } }),
      },
      childEnv: {
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: provider.url,
        FAKE_CLAUDE_RECORD: records,
        FAKE_CLAUDE_STATE_DIR: join(dir, "fake-claude"),
      },
    });
    cleanups.push(() => td.stop());
    return td;
  };
  const td = await start();
  await td.api.registerAgent("ava", join(dir, "ws"));
  return { dir, td, provider, start, records: () => readFakeClaudeRecords(records) };
}

async function deliver(td: TestDaemon, overrides: Record<string, unknown> = {}) {
  const ack = await td.api.deliver("ava", makeDelivery({ conversation_id: "c-1", ...overrides }));
  expect(ack.status).toBe(202);
  const [done] = await td.api.settled([ack.body.delivery.id]);
  if (done === undefined) throw new Error("the delivery vanished");
  return { done, turns: await td.api.turns(`&deliveryId=${done.id}`) };
}

/** A request to the gateway with `token`, as a process would send it. */
async function askGateway(gatewayUrl: string, token: string): Promise<number> {
  const response = await fetch(`${gatewayUrl}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "x-api-key": token, "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-opus-5-5", messages: [] }),
  });
  await response.body?.cancel();
  return response.status;
}

describe("the daemon's model gateway, with the fake CLI", () => {
  it("gives each process the gateway's URL and a token of its own, never the key; the token dies with the process", async () => {
    const { td, records, provider } = await setup({ warmProcesses: 1 });
    const gateway = td.daemon.gatewayUrl;
    expect(gateway).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await deliver(td);
    await deliver(td);
    // Another conversation evicts the kept process (a cap of one): its token is revoked.
    await deliver(td, { conversation_id: "c-2" });
    const recorded = await records();
    expect(recorded).toHaveLength(3);
    for (const record of recorded) {
      expect(record.env["ANTHROPIC_BASE_URL"]).toBe(gateway);
      expect(record.env["ANTHROPIC_API_KEY"]).toMatch(/^tkgw_[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(record)).not.toContain(KEY);
      expect(record.env["ANTHROPIC_AUTH_TOKEN"]).toBeUndefined();
    }
    const [first, warm, other] = recorded;
    // The warm turn ran in the first turn's process, with its token; a new process, a new one.
    expect(warm?.pid).toBe(first?.pid);
    expect(warm?.env["ANTHROPIC_API_KEY"]).toBe(first?.env["ANTHROPIC_API_KEY"]);
    expect(other?.env["ANTHROPIC_API_KEY"]).not.toBe(first?.env["ANTHROPIC_API_KEY"]);

    // A live process's token is taken (the request reaches the provider with the key) …
    expect(await askGateway(gateway ?? "", other?.env["ANTHROPIC_API_KEY"] ?? "")).toBe(200);
    expect(provider.requests.at(-1)?.headers["x-api-key"]).toBe(KEY);
    // … an ended one's is refused, and so is the key itself.
    await waitFor(
      () => Promise.resolve(alive(first?.pid ?? 0) ? null : true),
      "the evicted process to exit",
    );
    const forwarded = provider.requests.length;
    await waitFor(
      async () =>
        (await askGateway(gateway ?? "", first?.env["ANTHROPIC_API_KEY"] ?? "")) === 401
          ? true
          : null,
      "the ended process's token to be refused",
    );
    expect(await askGateway(gateway ?? "", KEY)).toBe(401);
    expect(provider.requests.length).toBe(forwarded);
    // The fake CLI calls no provider: its turns keep the CLI's own figures, and say so.
    const turns = await td.api.turns();
    expect(turns.map((t) => t.usageSource)).toEqual(["cli", "cli", "cli"]);
    expect(turns.every((t) => t.requests === null && t.cacheMiss === null)).toBe(true);
  });

  it("removes the key file an earlier version left in the data directory", async () => {
    const { dir } = await setup({
      before: (data) => writeFile(join(data, "provider-key"), KEY, { mode: 0o600 }),
    });
    await expect(readFile(join(dir, "provider-key"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("fails a turn over a limit before anything starts; the delivery stays and runs when retried under a raised limit", async () => {
    const { td, start, records } = await setup({
      limits: limitSettings({ TALKIDE_LIMIT_PROJECT_DAY_USD: 0 }),
    });
    const seen: DaemonEvent[] = [];
    td.daemon.events.subscribe((event) => seen.push(event));
    const { done, turns } = await deliver(td);
    expect(done).toMatchObject({ state: "failed", failureReason: "usage_limit_reached" });
    expect(done.failureMessage).toContain("TALKIDE_LIMIT_PROJECT_DAY_USD");
    expect(done.failureMessage).toMatch(/limit of \$0\.00 is reached/);
    // Nothing started: no turn, no process.
    expect(turns).toEqual([]);
    expect(await records()).toEqual([]);
    expect(seen.filter((e) => "deliveryId" in e && e.deliveryId === done.id)).toMatchObject([
      { type: "delivery.accepted" },
      { type: "delivery.failed", reason: "usage_limit_reached" },
    ]);
    // Only a failed delivery can be retried; an unknown one is not found.
    expect((await td.api.retry("00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await td.api.retry("not-a-uuid")).status).toBe(400);

    // Still over the limit: retried, it fails the same way (and says so again).
    const again = await td.api.retry(done.id);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe("requeued");
    const [refused] = await td.api.settled([done.id]);
    expect(refused).toMatchObject({ state: "failed", failureReason: "usage_limit_reached" });

    // The operator raises the limit (a restart reads the settings): the retry runs the turn.
    await td.stop();
    const raised = await start(limitSettings({ TALKIDE_LIMIT_PROJECT_DAY_USD: 50 }));
    const retried = await raised.api.retry(done.id);
    expect(retried.status).toBe(200);
    const [completed] = await raised.api.settled([done.id]);
    expect(completed).toMatchObject({ state: "completed", failureReason: null });
    expect(await records()).toHaveLength(1);
    const completedAgain = await raised.api.retry(done.id);
    expect(completedAgain.status).toBe(409);
    expect(completedAgain.body).toMatchObject({ error: { code: "not_failed" } });
  });

  it("counts a turn for the sender of its message: one member over their limit, another not", async () => {
    const { td } = await setup({
      limits: limitSettings({ TALKIDE_LIMIT_USER_DAY_TOKENS: 1000 }),
    });
    // What anna's earlier turns used today, as the gateway stored it.
    await sql`INSERT INTO gateway_requests (at, project_key, user_key, method, path, status,
        input_tokens, cache_write_5m_tokens, cache_write_1h_tokens, cache_read_tokens,
        output_tokens, cost_usd)
      VALUES (now(), 'agent:ava', 'user:u-anna', 'POST', '/v1/messages', 200, 900, 0, 0, 0, 200, 0.01)`.execute(
      td.daemon.db,
    );
    const anna = await deliver(td, { sender_user_id: "u-anna", sender_display_name: "anna" });
    expect(anna.done).toMatchObject({ state: "failed", failureReason: "usage_limit_reached" });
    expect(anna.done.failureMessage).toContain("TALKIDE_LIMIT_USER_DAY_TOKENS");
    const bob = await deliver(td, { sender_user_id: "u-bob", sender_display_name: "bob" });
    expect(bob.done.state).toBe("completed");
  });
});
