import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import {
  estimateBlockTokens,
  processesWithMarker,
  REAL_CLAUDE_PATH,
  realClaudeEnv,
  realClaudeSuiteCanRun,
  sandboxSuiteCanRun,
  startFakeMessagesApi,
  type FakeMessagesApi,
  type FakeReply,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import {
  DEFAULT_PRICES,
  limitSettings,
  priceOf,
  requestCostUsd,
  type LimitSettings,
} from "@talkide/gateway";
import { STANDING_PROMPT, standingPromptVersion } from "@talkide/prompts";
import { capturingLogger, snapshotDatabase } from "@talkide/service-kit/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DaemonConfig } from "../config.ts";
import type { TurnView } from "../http/views.ts";
import {
  alive,
  makeDelivery,
  makeDiskTempDir,
  removeDir,
  startTestDaemon,
  waitFor,
  type TestDaemon,
} from "../test-support/harness.ts";

const SUITE = "the daemon's model gateway wire suite";
const canRun = realClaudeSuiteCanRun(SUITE) && (await sandboxSuiteCanRun(SUITE));

/** The provider key the daemon is given: a canary nothing an agent can read may hold. */
const KEY = "sk-ant-api03-GATEWAYCANARY-7d1e0c9b";
const REPLY = "Hotovo, polévka je na stole.";

/** The fake model's answer to each request, switched by the tests. */
type Mode =
  | { readonly kind: "text" }
  /** A command, then (once its result came back) an answer held until `release` resolves. */
  | { readonly kind: "hold"; readonly command: string; readonly release: Promise<void> }
  /** A command the daemon's rules refuse (the CLI sends the refusal back), then the answer. */
  | { readonly kind: "tool-then-text" };

function toolResultIn(request: RecordedRequest, id: string): boolean {
  const { messages } = request.body as { messages?: Array<{ content?: unknown }> };
  return (messages ?? []).some(
    (m) =>
      Array.isArray(m.content) &&
      (m.content as Array<Record<string, unknown>>).some(
        (b) => b["type"] === "tool_result" && b["tool_use_id"] === id,
      ),
  );
}

let toolCounter = 0;

/** What the fake model answered to each request (by its index): its output is counted from it. */
const answered = new Map<number, readonly unknown[]>();

/** Every live process under `root` (its descendants, recursively), from /proc. */
async function descendantsOf(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const parent = Number(/\) \S (\d+)/.exec(stat)?.[1]);
    if (Number.isInteger(parent)) parents.set(Number(entry), parent);
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

/** Of `pids`, the first whose parent is not among them (the root of their tree). */
async function topmostOf(pids: readonly number[]): Promise<number | undefined> {
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    const parent = Number(/\) \S (\d+)/.exec(stat)?.[1]);
    if (!pids.includes(parent)) return pid;
  }
  return undefined;
}

/** Every file under `dir`, as bytes (gzip decompressed: nothing may hide in a compressed one). */
async function filesUnder(dir: string): Promise<Array<{ path: string; text: string }>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const files: Array<{ path: string; text: string }> = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path).catch(() => null);
    if (bytes === null) continue;
    files.push({ path, text: bytes.toString("latin1") });
  }
  return files;
}

/** The usage the fake provider reported for its answers `from` (request indexes) on. */
function reportedUsage(api: FakeMessagesApi, from: number, to: number) {
  const ledger = api.cacheLedger().filter((e) => e.requestIndex >= from && e.requestIndex < to);
  // The fake's output count: its estimate of the content it answered with.
  const outputOf = (index: number) =>
    estimateBlockTokens(JSON.stringify(answered.get(index) ?? null));
  const usage = {
    inputTokens: ledger.reduce((n, e) => n + e.uncached, 0),
    cacheCreationInputTokens: ledger.reduce((n, e) => n + e.write5m + e.write1h, 0),
    cacheReadInputTokens: ledger.reduce((n, e) => n + e.read, 0),
    outputTokens: ledger.reduce((n, e) => n + outputOf(e.requestIndex), 0),
  };
  const costUsd = ledger.reduce(
    (sum, e) =>
      sum +
      requestCostUsd(priceOf(DEFAULT_PRICES, e.model), {
        inputTokens: e.uncached,
        cacheWrite5mTokens: e.write5m,
        cacheWrite1hTokens: e.write1h,
        cacheReadTokens: e.read,
        outputTokens: outputOf(e.requestIndex),
        webSearchRequests: 0,
        inferenceGeo: null,
      }),
    0,
  );
  return {
    usage,
    cacheWrite5mTokens: ledger.reduce((n, e) => n + e.write5m, 0),
    cacheWrite1hTokens: ledger.reduce((n, e) => n + e.write1h, 0),
    requests: ledger.length,
    costUsd,
  };
}

/**
 * Issue 51 for the daemon, with the pinned CLI, its sandbox and the fake Messages API: the
 * agents reach the provider only through the daemon's gateway, the key appears nowhere an
 * agent (or anyone reading the daemon's answers, rows and logs) can read, each turn's usage is
 * exactly what the provider reported for its requests, and a turn over a limit fails with the
 * limit's words while its delivery waits for a retry.
 */
describe.skipIf(!canRun)("the daemon's agents at the wire, through the model gateway", () => {
  let dir: string;
  let api: FakeMessagesApi;
  let mode: Mode = { kind: "text" };
  const { logger, logs } = capturingLogger("talkide-daemon");

  beforeAll(async () => {
    dir = await makeDiskTempDir("talkide-daemon-gateway-");
    api = await startFakeMessagesApi({
      keepCredentials: true,
      reply: async (request): Promise<FakeReply> => {
        const text = (): FakeReply => {
          answered.set(request.index, [{ type: "text", text: REPLY }]);
          return { text: REPLY };
        };
        const current = mode;
        if (current.kind === "text") return text();
        const id = `toolu_01gw${String(toolCounter)}`;
        if (!toolResultIn(request, id)) {
          const command = current.kind === "hold" ? current.command : "cat /etc/hostname";
          const content = [
            {
              type: "tool_use" as const,
              id,
              name: "Bash",
              input: { command, description: "As asked" },
            },
          ];
          answered.set(request.index, content);
          return { content };
        }
        toolCounter += 1;
        if (current.kind === "hold") await current.release;
        return text();
      },
    });
  });
  afterAll(async () => {
    await api.close();
    await removeDir(dir);
  });

  /** A daemon on `name`'s data dir (kept across restarts), agent alice registered. */
  async function daemon(
    name: string,
    config: Partial<DaemonConfig> = {},
    options: { limits?: LimitSettings; standingPrompt?: { text: string; version: string } } = {},
  ): Promise<{ td: TestDaemon; workspace: string }> {
    const root = join(dir, name);
    const home = join(root, "home");
    await mkdir(join(home, "tmp"), { recursive: true });
    const td = await startTestDaemon({
      dataDir: join(root, "data"),
      config: {
        claudePath: REAL_CLAUDE_PATH ?? "",
        concurrency: 1,
        turnTimeoutMs: 180_000,
        ...(options.limits === undefined
          ? {}
          : { gateway: { limits: options.limits, prices: DEFAULT_PRICES } }),
        ...config,
      },
      childBaseEnv: realClaudeEnv({
        baseUrl: api.url,
        home,
        apiKey: KEY,
        extra: { TMPDIR: join(home, "tmp") },
      }),
      killGraceMs: 2000,
      logger,
      ...(options.standingPrompt === undefined ? {} : { standingPrompt: options.standingPrompt }),
    });
    const workspace = join(root, "agents", "alice");
    await td.api.registerAgent("alice", workspace);
    return { td, workspace };
  }

  async function deliver(td: TestDaemon, text = "Je polévka hotová?") {
    const before = api.requests.length;
    const ack = await td.api.deliver("alice", makeDelivery({ conversation_id: "c-1", text }));
    const [done] = await td.api.settled([ack.body.delivery.id]);
    if (done === undefined) throw new Error("the delivery vanished");
    const turns = await td.api.turns(`&deliveryId=${done.id}`);
    return { done, turn: turns[0], from: before, to: api.requests.length };
  }

  /** Every request the provider received came with the key, and never with a gateway token. */
  function expectOnlyTheKeyReachedTheProvider() {
    expect(api.requests.length).toBeGreaterThan(0);
    for (const request of api.requests) {
      expect(request.headers["x-api-key"]).toBe(KEY);
      expect(request.headers["authorization"]).toBeUndefined();
      expect(JSON.stringify(request.headers)).not.toContain("tkgw_");
      expect(request.rawBody).not.toContain(KEY);
    }
  }

  it("the key is in no process, file, transcript, row, answer or log an agent or a reader sees; a process's token dies with it", async () => {
    // Every turn in a process of its own (it exits after the turn), and a rule that runs any
    // command: what a command (in the sandbox) inherits is read while one runs.
    const { td, workspace } = await daemon("canary", {
      warmProcesses: 0,
      claudeExtraArgs: ["--allowedTools", "Bash(*)"],
    });
    const gatewayUrl = td.daemon.gatewayUrl ?? "";
    expect(gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    let release = (): void => undefined;
    mode = {
      kind: "hold",
      command: "until [ -e release ]; do sleep 0.1; done; env | grep -E '^ANTHROPIC_' || echo none",
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    };
    const requestsBefore = api.messageRequests().length;
    const ack = await td.api.deliver("alice", makeDelivery({ conversation_id: "c-1" }));
    const running = await waitFor(async () => {
      const [turn] = (await td.api.turns()).filter((t) => t.state === "running");
      return turn ?? null;
    }, "the turn to start");

    /**
     * What every process of the turn shows: its environment and arguments; null while its
     * Claude Code process is not there yet (the turn is running before its process spawns).
     */
    const readProcesses = async () => {
      // The command's processes inherit the marker too: the CLI is the one whose parent has it
      // not (pids may wrap, so the lowest is not always the CLI).
      const cli = await topmostOf(await processesWithMarker("TALKIDE_TURN_ID", running.id));
      if (cli === undefined) return null;
      const pids = [cli, ...(await descendantsOf(cli))];
      const seen: Array<{ pid: number; environ: string; cmdline: string }> = [];
      for (const pid of pids) {
        const [environ, cmdline] = await Promise.all([
          readFile(`/proc/${pid}/environ`, "latin1"),
          readFile(`/proc/${pid}/cmdline`, "latin1"),
        ]).catch((error: unknown) => {
          // Only a process that exited meanwhile may be unreadable.
          if (alive(pid)) throw error;
          return [null, null];
        });
        if (environ !== null && cmdline !== null) seen.push({ pid, environ, cmdline });
      }
      return { cli, seen };
    };

    // While the command runs in the sandbox: the CLI, bubblewrap, the shell, its sleep.
    const during = await waitFor(async () => {
      const read = await readProcesses();
      return read?.seen.some((p) => p.cmdline.startsWith("sleep")) === true ? read : null;
    }, "the agent's command to run");
    await writeFile(join(workspace, "release"), "");
    // While the model's answer is held.
    await waitFor(
      () => Promise.resolve(api.messageRequests().length >= requestsBefore + 2 ? true : null),
      "the request after the command",
    );
    const held = await readProcesses();
    if (held === null) throw new Error("the turn's Claude Code process is not running");
    const cliEnviron = held.seen.find((p) => p.pid === held.cli)?.environ.split("\0") ?? [];
    const token = cliEnviron.find((v) => v.startsWith("ANTHROPIC_API_KEY="))?.slice(18) ?? "";
    expect(token).toMatch(/^tkgw_[A-Za-z0-9_-]{43}$/);
    expect(cliEnviron).toContain(`ANTHROPIC_BASE_URL=${gatewayUrl}`);
    expect(cliEnviron.some((v) => v.startsWith("ANTHROPIC_AUTH_TOKEN="))).toBe(false);
    for (const { environ, cmdline } of [...during.seen, ...held.seen]) {
      expect(environ).not.toContain(KEY);
      expect(cmdline).not.toContain(KEY);
    }
    expect(during.seen.length).toBeGreaterThan(1);
    // The CLI's config dir, the data dir (every file, the database included), the workspace.
    const config = td.daemon.config;
    const dataDir = config.dataDir;
    const whileRunning = [
      ...(await filesUnder(config.claudeConfigDir)),
      ...(await filesUnder(dataDir)),
      ...(await filesUnder(workspace)),
    ];
    expect(whileRunning.filter((f) => f.text.includes(KEY)).map((f) => f.path)).toEqual([]);
    release();

    const [done] = await td.api.settled([ack.body.delivery.id]);
    expect(done?.state, JSON.stringify(done)).toBe("completed");
    // What the command found in its environment: at most the process's own token of the
    // gateway (Claude Code hands its environment on), which no command can reach.
    const commandSaw = JSON.stringify(
      (
        api.messageRequests()[requestsBefore + 1]?.body as {
          messages: Array<{ content: unknown }>;
        }
      ).messages.at(-1)?.content,
    );
    expect(commandSaw).toContain("tool_result");
    expect(commandSaw).not.toContain(KEY);
    for (const [, value] of commandSaw.matchAll(/ANTHROPIC_API_KEY=([^\\"\s]*)/g)) {
      expect(value).toBe(token);
    }

    // After the turn: transcripts, stored rows (the gateway's too), every answer, the log.
    const after = [
      ...(await filesUnder(config.claudeConfigDir)),
      ...(await filesUnder(dataDir)),
      ...(await filesUnder(workspace)),
    ];
    expect(after.filter((f) => f.text.includes(KEY)).map((f) => f.path)).toEqual([]);
    expect(JSON.stringify(await snapshotDatabase(td.daemon.db))).not.toContain(KEY);
    const prompts = await sql<{ blocks: Uint8Array }>`
      SELECT blocks FROM gateway_session_prompts`.execute(td.daemon.db);
    expect(prompts.rows.length).toBeGreaterThan(0);
    for (const row of prompts.rows) {
      expect(gunzipSync(row.blocks).toString("utf8")).not.toContain(KEY);
    }
    const answers = await Promise.all(
      [
        "/v1/turns?limit=1000&events=true",
        "/v1/sessions",
        "/v1/deliveries",
        `/v1/deliveries/${ack.body.delivery.id}?payload=true`,
        "/v1/agents",
        "/v1/agents/alice",
        "/v1/status",
        "/v1/tokens",
      ].map((path) => td.api.call("GET", path)),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).not.toContain(KEY);
    }
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join("\n")).not.toContain(KEY);
    expect(logs.join("\n")).not.toContain(token);
    expectOnlyTheKeyReachedTheProvider();

    // The process exited with its turn: its token is refused, and nothing reaches the provider.
    await waitFor(
      () => Promise.resolve(alive(held.cli) ? null : true),
      "the turn's process to exit",
    );
    // The daemon learns of the exit from its own event loop (the child's output closes), an
    // instant after the kernel: from then on the token is refused (seen under a loaded CI run).
    await waitFor(async () => {
      const probe = await fetch(`${gatewayUrl}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": token, "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-opus-5-5", max_tokens: 1, messages: [] }),
      });
      await probe.body?.cancel();
      return probe.status === 401 ? true : null;
    }, "the daemon to revoke the ended process's token");
    const forwarded = api.requests.length;
    for (const header of [{ "x-api-key": token }, { authorization: `Bearer ${token}` }]) {
      const refused = await fetch(`${gatewayUrl}/v1/messages`, {
        method: "POST",
        headers: { ...header, "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-opus-5-5", max_tokens: 1, messages: [] }),
      });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { type: "authentication_error" } });
    }
    expect(api.requests.length).toBe(forwarded);
    await td.stop();
    mode = { kind: "text" };
  }, 600_000);

  it("stores each turn's usage exactly as the provider reported it, warm, resumed cold, across restarts, and says why the cache missed", async () => {
    mode = { kind: "text" };
    const turns: Array<{ turn: TurnView | undefined; from: number; to: number }> = [];
    let { td } = await daemon("usage");
    turns.push(await deliver(td)); // a new session, cold
    turns.push(await deliver(td, "A co knedlíky?")); // warm
    await td.stop();
    ({ td } = await daemon("usage"));
    turns.push(await deliver(td, "A omáčka?")); // resumed in a new process
    turns.push(await deliver(td, "Díky.")); // warm again
    await td.stop();
    // Another standing prompt: the conversation's session ends, the next turn starts anew.
    const changed = `${STANDING_PROMPT}\n\nAnswer briefly.`;
    ({ td } = await daemon(
      "usage",
      {},
      { standingPrompt: { text: changed, version: standingPromptVersion(changed) } },
    ));
    turns.push(await deliver(td, "Ještě jednou?"));

    expect(turns.map(({ turn }) => [turn?.state, turn?.process, turn?.resumed])).toEqual([
      ["completed", "cold", false],
      ["completed", "warm", true],
      ["completed", "cold", true],
      ["completed", "warm", true],
      ["completed", "cold", false],
    ]);
    let sessionTotal = 0;
    for (const [index, { turn, from, to }] of turns.entries()) {
      const reported = reportedUsage(api, from, to);
      expect(reported.requests).toBeGreaterThan(0);
      expect(turn).toMatchObject({
        usageSource: "gateway",
        usage: reported.usage,
        requests: reported.requests,
        cacheWrite5mTokens: reported.cacheWrite5mTokens,
        cacheWrite1hTokens: reported.cacheWrite1hTokens,
      });
      expect(turn?.costUsd).toBeCloseTo(reported.costUsd, 9);
      // The first and the last turn open a session: the last one's total starts again.
      sessionTotal = (index === 4 ? 0 : sessionTotal) + (turn?.costUsd ?? 0);
      expect(turn?.cumulativeCostUsd).toBeCloseTo(sessionTotal, 9);
    }
    // The daemon's cache lifetime is 1 hour (TALKIDE_PROMPT_CACHE_TTL): every write is a 1-hour one.
    expect(turns[0]?.turn?.cacheWrite1hTokens).toBeGreaterThan(0);
    expect(turns.map(({ turn }) => turn?.cacheMiss?.reason)).toEqual([
      "new_session",
      "prefix_kept",
      "prefix_kept",
      "prefix_kept",
      "new_session",
    ]);
    expect(turns[0]?.turn?.cacheMissPhrase).toMatch(/^the conversation's first session/);
    expect(turns[1]?.turn?.cacheMissPhrase).toBeNull();
    expect(turns[4]?.turn?.cacheMissPhrase).toMatch(/^the standing prompt changed/);
    const sessions = await td.api.sessions("&agentId=alice");
    const ended = sessions.find((s) => !s.live);
    expect(ended?.cumulativeCostUsd).toBeCloseTo(
      turns.slice(0, 4).reduce((sum, { turn }) => sum + (turn?.costUsd ?? 0), 0),
      9,
    );
    // The agent's spend today and this month: the sum of its turns, beside the default caps.
    const spent = turns.reduce((sum, { turn }) => sum + (turn?.costUsd ?? 0), 0);
    const usage = await td.api.call<{
      gateway: boolean;
      today: { usd: number; tokens: number; limits: { usd: number | null } };
      month: { usd: number; limits: { usd: number | null } };
    }>("GET", "/v1/agents/alice/usage");
    expect(usage.status).toBe(200);
    expect(usage.body.gateway).toBe(true);
    expect(usage.body.today.usd).toBeCloseTo(spent, 9);
    expect(usage.body.month.usd).toBeCloseTo(spent, 9);
    expect([usage.body.today.limits.usd, usage.body.month.limits.usd]).toEqual([50, 500]);
    expect((await td.api.call("GET", "/v1/agents/nobody/usage")).status).toBe(404);
    expectOnlyTheKeyReachedTheProvider();
    await td.stop();
  }, 600_000);

  it("fails a turn whose request passes a limit, and one over it before any request leaves; both deliveries run when retried under a raised limit", async () => {
    mode = { kind: "text" };
    let { td } = await daemon("limits", { warmProcesses: 0 });
    const first = await deliver(td);
    expect(first.turn?.state).toBe("completed");
    const used =
      (first.turn?.usage?.inputTokens ?? 0) +
      (first.turn?.usage?.cacheCreationInputTokens ?? 0) +
      (first.turn?.usage?.cacheReadInputTokens ?? 0) +
      (first.turn?.usage?.outputTokens ?? 0);
    await td.stop();
    // A cap the next turn's first request passes and its second does not.
    const cap = limitSettings({ TALKIDE_LIMIT_PROJECT_DAY_TOKENS: used + 1 });
    ({ td } = await daemon("limits", { warmProcesses: 0 }, { limits: cap }));
    mode = { kind: "tool-then-text" };
    const refused = await deliver(td, "Spusť příkaz.");
    expect(refused.done).toMatchObject({ state: "failed", failureReason: "usage_limit_reached" });
    expect(refused.done.failureMessage).toContain("TALKIDE_LIMIT_PROJECT_DAY_TOKENS");
    expect(refused.turn).toMatchObject({
      state: "failed",
      resumed: true,
      process: "cold",
      failureReason: "usage_limit_reached",
      failureMessage: refused.done.failureMessage,
      usageSource: "gateway",
      requests: 1,
      usageLimit: { scope: "project", period: "day", measure: "tokens" },
    });
    // One request reached the provider; the one that would pass the limit did not leave.
    expect(refused.to - refused.from).toBe(1);
    // What the failed resumed turn cost is charged to it, and to its session.
    const charged = reportedUsage(api, refused.from, refused.to);
    expect(refused.turn?.costUsd).toBeCloseTo(charged.costUsd, 9);
    expect(refused.turn?.cumulativeCostUsd).toBeCloseTo(
      (first.turn?.costUsd ?? 0) + charged.costUsd,
      9,
    );
    // The next turn fails before anything starts: no turn, no request.
    const blocked = await deliver(td, "A teď?");
    expect(blocked.done).toMatchObject({ state: "failed", failureReason: "usage_limit_reached" });
    expect(blocked.turn).toBeUndefined();
    expect(blocked.to).toBe(blocked.from);
    await td.stop();

    // The operator raises the limit; both deliveries are retried and run, in their order.
    mode = { kind: "text" };
    ({ td } = await daemon("limits", { warmProcesses: 0 }, { limits: limitSettings({}) }));
    for (const id of [refused.done.id, blocked.done.id]) {
      expect((await td.api.retry(id)).status).toBe(200);
    }
    const settled = await td.api.settled([refused.done.id, blocked.done.id]);
    expect(settled.map((d) => d.state)).toEqual(["completed", "completed"]);
    expectOnlyTheKeyReachedTheProvider();
    await td.stop();
  }, 600_000);
});
