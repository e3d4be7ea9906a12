/**
 * Benchmark of the daemon's own overhead and throughput (not a test). Writes BENCHMARKS.md.
 *
 *   pnpm --filter @talkide/daemon run bench
 *
 * Everything is real except the model: HTTP intake, the embedded database (and a local
 * PostgreSQL server when its binaries are installed), the work queue,
 * and one child process per turn (the fake `claude` from @talkide/claude-cli/testing).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, release, tmpdir, totalmem, type as osType } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FAKE_CLAUDE_PATH } from "@talkide/claude-cli/testing";
import {
  createTestDatabase,
  postgresSuiteCanRun,
  startPostgresServer,
} from "@talkide/test-postgres";
import { format, resolveConfig } from "prettier";
import type { ClaudeTurnResult } from "@talkide/claude-cli";
import type { TakenProcess } from "@talkide/turn-engine";
import type { DaemonConfig } from "../config.ts";
import { startDaemon, type RunningDaemon } from "../daemon.ts";
import type { DaemonEvent } from "../events/bus.ts";
import { createLogger } from "@talkide/service-kit";
import { ClaudeCodeRuntime, type ClaudeCodeTurn } from "../runtime/claude-code.ts";
import { DEFAULT_LIMITS, DEFAULT_PRICES } from "@talkide/gateway";

const OVERHEAD_TURNS = Number(process.env["BENCH_OVERHEAD_TURNS"] ?? 200);
const DRAIN_DELIVERIES = Number(process.env["BENCH_DRAIN_DELIVERIES"] ?? 1000);
const DRAIN_AGENTS = 10;
const CONCURRENCY = 4;

/**
 * Times each turn's runtime calls (from its digest, the first, to its message's result), and
 * can hold turns at a gate until released.
 */
class TimedRuntime extends ClaudeCodeRuntime {
  readonly calls = new Map<string, { start: number; end: number }>();
  gate: Promise<void> = Promise.resolve();
  readonly #started = new Map<ClaudeCodeTurn, number>();

  override async digest(turn: ClaudeCodeTurn): Promise<string> {
    await this.gate;
    this.#started.set(turn, performance.now());
    return super.digest(turn);
  }

  override async send(
    taken: TakenProcess,
    turn: ClaudeCodeTurn,
    signal: AbortSignal,
  ): Promise<ClaudeTurnResult> {
    const result = await super.send(taken, turn, signal);
    const start = this.#started.get(turn) ?? performance.now();
    this.#started.delete(turn);
    this.calls.set(turn.env["TICLAWK_MESSAGE_ID"] ?? "", { start, end: performance.now() });
    return result;
  }
}

function config(dataDir: string, databaseUrl: string | null = null): DaemonConfig {
  return {
    host: "127.0.0.1",
    port: 0,
    dataDir,
    databaseUrl,
    concurrency: CONCURRENCY,
    turnTimeoutMs: 60_000,
    maxAttempts: 3,
    warmProcesses: 4,
    warmIdleMs: 600_000,
    leaseSeconds: 10,
    claudePath: FAKE_CLAUDE_PATH,
    claudeConfigDir: join(dataDir, "claude"),
    claudeExtraArgs: [],
    sandboxDenyRead: [],
    promptCacheTtl: "1h",
    hostId: "bench",
    upstreamUrl: null,
    ticlawkEntry: null,
    gateway: { limits: DEFAULT_LIMITS, prices: DEFAULT_PRICES },
    logLevel: "silent",
  };
}

let counter = 0;
function delivery(conversationId: string): Record<string, unknown> {
  counter += 1;
  return {
    id: `b-${counter}`,
    seq: counter,
    created_at: "2026-05-02T14:32:11Z",
    conversation_type: "group",
    conversation_id: conversationId,
    conversation_name: conversationId,
    sender_type: "human",
    sender_display_name: "anna",
    reason: "mention",
    text: "Benchmark message.",
  };
}

async function post(daemon: RunningDaemon, agentId: string, body: unknown): Promise<void> {
  const response = await fetch(`${daemon.url}/v1/agents/${agentId}/deliveries`, {
    method: "POST",
    headers: { authorization: `Bearer ${daemon.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 202)
    throw new Error(`intake answered ${response.status}: ${await response.text()}`);
}

async function register(
  daemon: RunningDaemon,
  agentId: string,
  workspaceDir: string,
): Promise<void> {
  const response = await fetch(`${daemon.url}/v1/agents/${agentId}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${daemon.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ workspaceDir }),
  });
  if (!response.ok) throw new Error(`register answered ${response.status}`);
}

/** Resolves when `count` deliveries completed (or fails on the first failed one). */
function completions(
  daemon: RunningDaemon,
  count: number,
  onEach?: (event: DaemonEvent) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const stop = daemon.events.subscribe((event) => {
      if (event.type === "delivery.failed") {
        stop();
        reject(new Error(`a delivery failed: ${event.reason}`));
      }
      if (event.type !== "delivery.completed") return;
      onEach?.(event);
      seen += 1;
      if (seen === count) {
        stop();
        resolve();
      }
    });
  });
}

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function measureOverhead(dir: string, databaseUrl: string | null = null) {
  const runtime = new TimedRuntime({ claudePath: FAKE_CLAUDE_PATH, timeoutMs: 60_000 });
  const daemon = await startDaemon({
    config: config(join(dir, databaseUrl === null ? "overhead" : "overhead-server"), databaseUrl),
    logger: createLogger("talkide-daemon", "silent"),
    runtime,
    childBaseEnv: { ...process.env },
  });
  try {
    await register(daemon, "solo", join(dir, "ws-solo"));
    const accepted = new Map<string, number>();
    const turnStarted = new Map<string, number>();
    const messageOf = new Map<string, string>();
    daemon.events.subscribe((event) => {
      if (event.type === "delivery.accepted") {
        messageOf.set(event.deliveryId, event.messageId);
        accepted.set(event.messageId, performance.now());
      }
      if (event.type === "turn.started")
        turnStarted.set(messageOf.get(event.deliveryId) ?? "", performance.now());
    });
    const samples = {
      endToEnd: [],
      overhead: [],
      runtimeOnly: [],
      intake: [],
      toStart: [],
      toStored: [],
      toSpawn: [],
    } as Record<
      "endToEnd" | "overhead" | "runtimeOnly" | "intake" | "toStart" | "toStored" | "toSpawn",
      number[]
    >;
    for (let i = 0; i < OVERHEAD_TURNS; i += 1) {
      // 20 conversations, turns in sequence: a mix of fresh (first) and resumed turns.
      const body = delivery(`c-${i % 20}`);
      const id = String(body["id"]);
      const done = completions(daemon, 1);
      const started = performance.now();
      await post(daemon, "solo", body);
      await done;
      const stored = performance.now();
      const call = runtime.calls.get(id);
      if (call === undefined) throw new Error(`no runtime call for ${id}`);
      samples.endToEnd.push(stored - started);
      samples.runtimeOnly.push(call.end - call.start);
      samples.overhead.push(stored - started - (call.end - call.start));
      samples.intake.push((accepted.get(id) ?? Number.NaN) - started);
      samples.toStart.push((turnStarted.get(id) ?? Number.NaN) - (accepted.get(id) ?? Number.NaN));
      samples.toStored.push(stored - call.end);
      samples.toSpawn.push(call.start - (accepted.get(id) ?? Number.NaN));
    }
    const sort = (values: number[]) => [...values].sort((a, b) => a - b);
    return {
      endToEnd: sort(samples.endToEnd),
      overhead: sort(samples.overhead),
      runtimeOnly: sort(samples.runtimeOnly),
      intake: sort(samples.intake),
      toStart: sort(samples.toStart),
      toStored: sort(samples.toStored),
      toSpawn: sort(samples.toSpawn),
    };
  } finally {
    await daemon.stop();
  }
}

async function measureDrain(dir: string) {
  const runtime = new TimedRuntime({ claudePath: FAKE_CLAUDE_PATH, timeoutMs: 60_000 });
  let open!: () => void;
  runtime.gate = new Promise<void>((resolve) => (open = resolve));
  const daemon = await startDaemon({
    config: config(join(dir, "drain")),
    logger: createLogger("talkide-daemon", "silent"),
    runtime,
    childBaseEnv: { ...process.env },
  });
  try {
    const agents = Array.from({ length: DRAIN_AGENTS }, (_, i) => `agent-${i}`);
    for (const agent of agents) await register(daemon, agent, join(dir, `ws-${agent}`));
    const done = completions(daemon, DRAIN_DELIVERIES);
    const intakeStarted = performance.now();
    // Ten senders at a time; each agent gets its deliveries in two conversations.
    for (let i = 0; i < DRAIN_DELIVERIES; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, DRAIN_DELIVERIES - i) }, (_, j) => {
          const agent = agents[(i + j) % DRAIN_AGENTS] ?? "agent-0";
          return post(daemon, agent, delivery(`${agent}-c${(i + j) % 2}`));
        }),
      );
    }
    const intakeMs = performance.now() - intakeStarted;
    const drainStarted = performance.now();
    open();
    await done;
    const drainMs = performance.now() - drainStarted;
    return { intakeMs, drainMs };
  } finally {
    await daemon.stop();
  }
}

/** Everything from this line on in BENCHMARKS.md is written by hand and kept by the benchmark. */
const HAND_WRITTEN = "<!-- written by hand below: kept when the benchmark rewrites this file -->";

const INSTANCE_CONVERSATIONS = 6;
const INSTANCE_DELIVERIES = 60;

/**
 * Turns per second of `count` daemons (in one process) on one server database: 60 deliveries
 * for one agent in 6 conversations, posted round-robin to the daemons, drained by all of them.
 */
async function measureInstances(dir: string, adminUrl: string, count: number): Promise<number> {
  const database = await createTestDatabase(adminUrl);
  const daemons: RunningDaemon[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      daemons.push(
        await startDaemon({
          config: config(join(dir, `instances-${count}-${i}`), database.url),
          logger: createLogger("talkide-daemon", "silent"),
          childBaseEnv: { ...process.env },
        }),
      );
    }
    const first = daemons[0] as RunningDaemon;
    await register(first, "ava", join(dir, `instances-${count}-ws`));
    let completed = 0;
    const done = new Promise<void>((resolve, reject) => {
      for (const daemon of daemons) {
        daemon.events.subscribe((event) => {
          if (event.type === "delivery.failed")
            reject(new Error(`a delivery failed: ${event.reason}`));
          if (event.type === "delivery.completed" && (completed += 1) === INSTANCE_DELIVERIES)
            resolve();
        });
      }
    });
    const started = performance.now();
    for (let i = 0; i < INSTANCE_DELIVERIES; i += 1) {
      await post(
        daemons[i % count] as RunningDaemon,
        "ava",
        delivery(`c-${i % INSTANCE_CONVERSATIONS}`),
      );
    }
    await done;
    return INSTANCE_DELIVERIES / ((performance.now() - started) / 1000);
  } finally {
    for (const daemon of daemons) await daemon.stop();
    await database.drop();
  }
}

/** The overhead run and the instance runs on a throwaway local PostgreSQL server, when one can be started. */
async function serverRuns(dir: string) {
  if (!postgresSuiteCanRun("The daemon benchmark's server run")) return null;
  const server = await startPostgresServer();
  try {
    const database = await createTestDatabase(server.url);
    let overhead: Awaited<ReturnType<typeof measureOverhead>>;
    try {
      overhead = await measureOverhead(dir, database.url);
    } finally {
      await database.drop();
    }
    const turnsPerSecond: number[] = [];
    for (const count of [1, 2, 3])
      turnsPerSecond.push(await measureInstances(dir, server.url, count));
    return { overhead, turnsPerSecond };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "talkide-daemon-bench-"));
  const loadBefore = loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
  try {
    const o = await measureOverhead(dir);
    const runs = await serverRuns(dir);
    const server = runs?.overhead ?? null;
    const d = await measureDrain(dir);
    const cpu = cpus();
    const lines = [
      "# @talkide/daemon benchmarks",
      "",
      "Written by `pnpm --filter @talkide/daemon run bench` (`src/bench/turns.bench.ts`). A benchmark, not a",
      "test: numbers depend on the machine and on what else runs on it.",
      "",
      "## Machine",
      "",
      `- ${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`,
      `- ${osType()} ${release()}, Node ${process.version}`,
      `- load average when the run started: ${loadBefore} (other work shared the machine)`,
      `- date: ${new Date().toISOString().slice(0, 10)}`,
      "",
      "## Setup",
      "",
      "In-process daemon, embedded database (PGlite) in a temporary directory, HTTP intake on",
      "loopback, the fake `claude` (a Node script speaking stream-json) as the runtime: one child",
      `process per turn. Concurrency cap ${CONCURRENCY}.`,
      "",
      "## Overhead per turn",
      "",
      `${OVERHEAD_TURNS} deliveries posted one after another (20 conversations, so fresh and resumed`,
      "turns), each waited for until its result was stored. *End to end* is from sending the",
      "intake request to the `delivery.completed` event (result stored). *Runtime* is the",
      "runtime's `runTurn` call: spawning the fake `claude`, its run, reading its output. *Daemon",
      "overhead* is the difference per turn: HTTP intake, validation, the durable insert, claiming,",
      "the session and turn rows, building the wake prompt and the environment, and storing the",
      "result.",
      "",
      "| measure | p50 | p99 |",
      "| --- | --- | --- |",
      `| daemon overhead | ${ms(percentile(o.overhead, 50))} | ${ms(percentile(o.overhead, 99))} |`,
      `| runtime (fake claude) | ${ms(percentile(o.runtimeOnly, 50))} | ${ms(percentile(o.runtimeOnly, 99))} |`,
      `| end to end | ${ms(percentile(o.endToEnd, 50))} | ${ms(percentile(o.endToEnd, 99))} |`,
      "",
      "Where the overhead goes (same turns):",
      "",
      "| phase | p50 | p99 |",
      "| --- | --- | --- |",
      `| intake: request sent → delivery stored | ${ms(percentile(o.intake, 50))} | ${ms(percentile(o.intake, 99))} |`,
      `| stored → turn started (claim, session, turn row) | ${ms(percentile(o.toStart, 50))} | ${ms(percentile(o.toStart, 99))} |`,
      `| runtime finished → result stored | ${ms(percentile(o.toStored, 50))} | ${ms(percentile(o.toStored, 99))} |`,
      "",
      `Target: overhead p50 ≤ 10 ms — ${percentile(o.overhead, 50) <= 10 ? "met" : "not met"} on this run.`,
      "",
      "## Delivery accepted → `claude` spawned",
      "",
      "From the `delivery.accepted` event (the delivery and its job stored) to the runtime call",
      "that spawns the fake `claude`, same turns as above. The daemon's turns run on the shared",
      "work queue (`@talkide/work-queue`, pg-boss). The in-memory claim loop it replaced is compared",
      "side by side at the end of this file.",
      "",
      "| database | p50 | p99 |",
      "| --- | --- | --- |",
      `| embedded (PGlite) | ${ms(percentile(o.toSpawn, 50))} | ${ms(percentile(o.toSpawn, 99))} |`,
      server === null
        ? "| PostgreSQL server | not measured (no server binaries) | |"
        : `| PostgreSQL server (local, ${OVERHEAD_TURNS} turns) | ${ms(percentile(server.toSpawn, 50))} | ${ms(percentile(server.toSpawn, 99))} |`,
      "",
      "## Turns per second, one to three daemons",
      "",
      `${INSTANCE_DELIVERIES} deliveries for one agent in ${INSTANCE_CONVERSATIONS} conversations, posted round-robin to`,
      "the daemons (in one process, each with its own data directory and a concurrency cap of",
      `${CONCURRENCY}) on one local PostgreSQL server, the fake \`claude\` answering at once: from the first`,
      "post to the last result stored.",
      "",
      "| daemons | turns/s |",
      "| --- | --- |",
      ...(runs === null
        ? ["| 1–3 | not measured (no server binaries) |"]
        : runs.turnsPerSecond.map((value, i) => `| ${i + 1} | ${value.toFixed(2)} |`)),
      "",
      "## Draining a backlog",
      "",
      `${DRAIN_DELIVERIES} deliveries for ${DRAIN_AGENTS} agents (two conversations each) accepted over HTTP`,
      "(ten requests in flight) while the runtime was held back, then released: the time until",
      "the last result was stored.",
      "",
      "| measure | value |",
      "| --- | --- |",
      `| intake of ${DRAIN_DELIVERIES} deliveries | ${(d.intakeMs / 1000).toFixed(2)} s (${(DRAIN_DELIVERIES / (d.intakeMs / 1000)).toFixed(0)} deliveries/s) |`,
      `| drain of ${DRAIN_DELIVERIES} deliveries | ${(d.drainMs / 1000).toFixed(2)} s (${(DRAIN_DELIVERIES / (d.drainMs / 1000)).toFixed(1)} turns/s) |`,
      "",
      "The drain is bound by the runtime: every turn starts a Node process, and the machine",
      `runs at most ${CONCURRENCY} at once.`,
      "",
    ];
    const out = fileURLToPath(new URL("../../BENCHMARKS.md", import.meta.url));
    // Sections written by hand (runs of other releases, side by side) follow a marker and
    // are kept when the benchmark rewrites the file.
    const previous = await readFile(out, "utf8").catch(() => "");
    const kept = previous.includes(HAND_WRITTEN)
      ? previous.slice(previous.indexOf(HAND_WRITTEN))
      : "";
    // Formatted like every other file of the repository, so the lint stays green.
    const text = await format(`${lines.join("\n")}\n${kept}`, {
      ...(await resolveConfig(out)),
      filepath: out,
    });
    await writeFile(out, text);
    process.stdout.write(`${text}\nwritten to ${out}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
