/**
 * Benchmark of warm turns (issue 15), not a test: how long a delivery takes with the pinned
 * real `claude` CLI, against a stand-in Messages API on loopback that answers at once, when
 * the conversation's process is kept ("warm") and when a new one resumes the session
 * ("cold"), next to a bare `claude -p`; how much of a warm turn is the daemon's own; and how
 * much memory the kept processes hold. Writes its own block of BENCHMARKS.md.
 *
 *   cd apps/daemon && node --conditions=@talkide/source src/bench/warm-turns.bench.ts
 *
 * (also the second step of `pnpm --filter @talkide/daemon run bench`). The block goes after
 * the hand-written marker that `turns.bench.ts` keeps when it rewrites the file, between
 * markers of its own that this benchmark replaces on its next run.
 *
 * Everything runs in this one process except the `claude` processes: two daemons (embedded
 * database each, no DATABASE_URL), the stand-in API and the client, all on one
 * `performance.now()` clock. The rounds interleave the three rows (a cold turn, a warm turn,
 * a bare run), so a change in the machine's load hits all of them alike.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, release, tmpdir, totalmem, type as osType } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { WarmClaudeProcess, type WarmTurnOptions } from "@talkide/claude-cli";
import {
  REAL_CLAUDE_PATH,
  REAL_CLAUDE_VERSION,
  realClaudeEnv,
  realClaudeSuiteCanRun,
  startFakeMessagesApi,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { createLogger } from "@talkide/service-kit";
import { format, resolveConfig } from "prettier";
import { startDaemon, type RunningDaemon } from "../daemon.ts";
import type { DaemonEvent } from "../events/bus.ts";
import { ClaudeCodeRuntime } from "../runtime/claude-code.ts";
import { ApiClient, makeDelivery, seedPgliteDataDir, testConfig } from "../test-support/harness.ts";

const ROUNDS = Number(process.env["BENCH_WARM_ROUNDS"] ?? 30);
const BARE_RUNS = Math.min(ROUNDS, Number(process.env["BENCH_BARE_RUNS"] ?? 20));
const WARMUP_ROUNDS = 3;
const CAP = 4;
const AGENT = "ava";
const CONVERSATION = "c-bench";
const TURN_TIMEOUT_MS = 120_000;

/** Everything from this line on in BENCHMARKS.md is kept by `turns.bench.ts` (same text there). */
const HAND_WRITTEN = "<!-- written by hand below: kept when the benchmark rewrites this file -->";
const BLOCK_BEGIN =
  "<!-- warm-turns.bench.ts: generated from here to its end marker, replaced on its next run -->";
const BLOCK_END = "<!-- warm-turns.bench.ts: end -->";

// ---------------------------------------------------------------------------------------------
// Probes: what one measured turn or run stamped.

interface Probe {
  /** A word only this turn's message carries, to tell its model call from any other. */
  readonly token: string;
  /** Every `POST /v1/messages` that arrived while the probe was current (body read). */
  readonly requests: number[];
  /** Those of them whose body carries `token` (the turn's own message). */
  readonly carrying: number[];
}

let probe: Probe | null = null;
let tokenCounter = 0;
function newProbe(): Probe {
  tokenCounter += 1;
  probe = { token: `zq${tokenCounter}x${process.pid}`, requests: [], carrying: [] };
  return probe;
}

/** The stand-in's reply callback runs once a message request's body has arrived. */
function onModelRequest(request: RecordedRequest): { text: string } {
  const at = performance.now();
  const current = probe;
  if (current !== null) {
    current.requests.push(at);
    if (request.rawBody.includes(current.token)) current.carrying.push(at);
  }
  return { text: "Noted." };
}

/**
 * The CLI's own turn, seen from the daemon's side: `WarmClaudeProcess.runTurn` writes the
 * stream-json line synchronously when called and resolves when the `result` event has been
 * parsed. Wrapped here (benchmark only) to stamp both ends.
 */
interface CliTurn {
  readonly process: WarmClaudeProcess;
  readonly written: number;
  result: number | null;
}
const cliTurns: CliTurn[] = [];
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with its `this` below
const originalRunTurn = WarmClaudeProcess.prototype.runTurn;
WarmClaudeProcess.prototype.runTurn = async function timedRunTurn(
  this: WarmClaudeProcess,
  options: WarmTurnOptions,
) {
  const turn: CliTurn = { process: this, written: performance.now(), result: null };
  cliTurns.push(turn);
  const result = await originalRunTurn.call(this, options);
  turn.result = performance.now();
  return result;
};

// ---------------------------------------------------------------------------------------------
// Daemons.

interface BenchDaemon {
  readonly daemon: RunningDaemon;
  readonly runtime: ClaudeCodeRuntime;
  readonly api: ApiClient;
}

async function startBenchDaemon(
  dir: string,
  name: string,
  warmProcesses: number,
  childBaseEnv: Record<string, string>,
): Promise<BenchDaemon> {
  const dataDir = join(dir, name);
  await seedPgliteDataDir(dataDir);
  const config = testConfig(dataDir, {
    claudePath: REAL_CLAUDE_PATH ?? "",
    concurrency: 1,
    turnTimeoutMs: TURN_TIMEOUT_MS,
    warmProcesses,
    hostId: `bench-${name}`,
  });
  // Built here rather than by the daemon, to reach its pool (`runtime.warm.pids()`).
  const runtime = new ClaudeCodeRuntime({
    claudePath: config.claudePath,
    extraArgs: config.claudeExtraArgs,
    timeoutMs: config.turnTimeoutMs,
    killGraceMs: 2000,
    warmProcesses: config.warmProcesses,
    warmIdleMs: config.warmIdleMs,
  });
  const daemon = await startDaemon({
    config,
    logger: createLogger("talkide-daemon", "silent"),
    runtime,
    childBaseEnv,
    killGraceMs: 2000,
  });
  const api = new ApiClient(daemon.url, daemon.adminToken);
  const workspace = join(dir, `${name}-ws`);
  await mkdir(workspace, { recursive: true });
  await api.registerAgent(AGENT, workspace);
  return { daemon, runtime, api };
}

interface TurnSample {
  readonly process: "warm" | "cold" | null;
  readonly coldReason: string | null;
  /** All relative to the POST being sent. */
  readonly firstRequest: number;
  readonly carryingRequest: number;
  readonly accepted: number;
  readonly started: number;
  readonly processEvent: number;
  readonly written: number;
  readonly result: number;
  readonly completed: number;
  readonly modelRequests: number;
}

/**
 * Posts one delivery and waits for its `delivery.completed` on the daemon's event bus (an
 * in-process subscription: the moment the result is stored, no polling delay).
 */
async function daemonTurn(target: BenchDaemon, conversationId: string): Promise<TurnSample> {
  await settle();
  const current = newProbe();
  const body = makeDelivery({
    conversation_id: conversationId,
    conversation_name: conversationId,
    text: `Benchmark message ${current.token}: please note it.`,
  });
  const messageId = String(body["id"]);
  const stamps = new Map<string, number>();
  let deliveryId: string | null = null;
  let taken: { kind: "warm" | "cold"; coldReason: string | null } | null = null;
  const firstCliTurn = cliTurns.length;
  let stop: () => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`delivery ${messageId} did not complete in time`));
    }, TURN_TIMEOUT_MS + 30_000);
    stop = target.daemon.events.subscribe((event: DaemonEvent) => {
      const at = performance.now();
      if (event.type === "delivery.accepted" && event.messageId === messageId) {
        deliveryId = event.deliveryId;
        stamps.set("accepted", at);
        return;
      }
      if (deliveryId === null || !("deliveryId" in event) || event.deliveryId !== deliveryId)
        return;
      if (event.type === "turn.process") {
        taken = { kind: event.process, coldReason: event.coldReason };
      }
      if (!stamps.has(event.type)) stamps.set(event.type, at);
      if (event.type === "delivery.completed") {
        clearTimeout(timer);
        resolve();
      }
      if (event.type === "delivery.failed" || event.type === "turn.failed") {
        clearTimeout(timer);
        reject(new Error(`delivery ${messageId} failed: ${event.reason}`));
      }
    });
  });
  const sent = performance.now();
  try {
    const ack = await target.api.deliver(AGENT, body);
    if (ack.status !== 202) throw new Error(`intake answered ${ack.status}`);
    await done;
  } finally {
    stop();
    probe = null;
  }
  const cli = cliTurns.slice(firstCliTurn);
  const cliTurn = cli[0];
  if (cli.length !== 1 || cliTurn?.result == null)
    throw new Error(`expected one CLI turn for ${messageId}, saw ${cli.length}`);
  const at = (name: string): number => (stamps.get(name) ?? Number.NaN) - sent;
  const kind = taken as { kind: "warm" | "cold"; coldReason: string | null } | null;
  return {
    process: kind?.kind ?? null,
    coldReason: kind?.coldReason ?? null,
    firstRequest: (current.requests[0] ?? Number.NaN) - sent,
    carryingRequest: (current.carrying[0] ?? Number.NaN) - sent,
    accepted: at("accepted"),
    started: at("turn.started"),
    processEvent: at("turn.process"),
    written: cliTurn.written - sent,
    result: cliTurn.result - sent,
    completed: at("delivery.completed"),
    modelRequests: current.requests.length,
  };
}

/** A pause before each measurement, so the last one's trailing work (queue, exits) is done. */
const SETTLE_MS = 100;
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}

/** The most recent CLI turn's process has exited (a cold turn's process ends after its turn). */
async function lastProcessEnded(): Promise<void> {
  const last = cliTurns.at(-1);
  if (last === undefined) return;
  await Promise.race([
    last.process.whenEnded(),
    new Promise((resolve) => setTimeout(resolve, 10_000)),
  ]);
}

// ---------------------------------------------------------------------------------------------
// A bare `claude -p`.

interface BareSample {
  readonly firstRequest: number;
  readonly carryingRequest: number;
  readonly result: number;
  readonly exit: number;
  readonly modelRequests: number;
}

async function bareRun(workspace: string, env: Record<string, string>): Promise<BareSample> {
  await settle();
  const current = newProbe();
  // Set by the stdout listener.
  const seen: { result: number; error: string | null } = { result: Number.NaN, error: null };
  let buffer = "";
  const started = performance.now();
  const child = spawn(
    REAL_CLAUDE_PATH ?? "claude",
    ["-p", "--output-format", "stream-json", "--verbose"],
    { cwd: workspace, env, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
      if (!Number.isNaN(seen.result) || line.trim() === "") continue;
      try {
        const event = JSON.parse(line) as { type?: unknown; is_error?: unknown };
        if (event.type === "result") {
          seen.result = performance.now();
          if (event.is_error === true) seen.error = line.slice(0, 500);
        }
      } catch {
        // Not a JSON line; the CLI prints only JSON lines here.
      }
    }
  });
  child.stdin.end(`Benchmark message ${current.token}: please note it.\n`);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (exitCode) => {
      resolve(exitCode);
    });
  });
  const exited = performance.now();
  probe = null;
  if (code !== 0 || Number.isNaN(seen.result) || seen.error !== null)
    throw new Error(
      `bare claude -p failed (exit ${code}): ${seen.error ?? ""} ${stderr.slice(-500)}`,
    );
  return {
    firstRequest: (current.requests[0] ?? Number.NaN) - started,
    carryingRequest: (current.carrying[0] ?? Number.NaN) - started,
    result: seen.result - started,
    exit: exited - started,
    modelRequests: current.requests.length,
  };
}

// ---------------------------------------------------------------------------------------------
// Memory.

interface ProcessMemory {
  readonly pid: number;
  readonly rssKib: number;
  readonly pssKib: number;
}

/** The process and every process of its group or below it (the CLI runs in a group of its own). */
async function processTree(root: number): Promise<number[]> {
  const parents = new Map<number, { ppid: number; pgrp: number }>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => null);
    if (stat === null) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    parents.set(Number(entry), { ppid: Number(fields[1]), pgrp: Number(fields[2]) });
  }
  const found = new Set<number>([root]);
  for (const [pid, info] of parents) if (info.pgrp === root) found.add(pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, info] of parents) {
      if (!found.has(pid) && found.has(info.ppid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found].filter((pid) => parents.has(pid));
}

async function memoryOf(pid: number): Promise<ProcessMemory> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8").catch(() => "");
  const kib = (text: string, field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN);
  return { pid, rssKib: kib(status, "VmRSS"), pssKib: kib(rollup, "Pss") };
}

interface KeptMemory {
  readonly kept: number;
  readonly processes: ProcessMemory[];
  readonly rssKib: number;
  readonly pssKib: number;
}

async function keptMemory(runtime: ClaudeCodeRuntime): Promise<KeptMemory> {
  const processes: ProcessMemory[] = [];
  const kept = runtime.warm.pids();
  for (const pid of kept) {
    for (const member of await processTree(pid)) processes.push(await memoryOf(member));
  }
  return {
    kept: kept.length,
    processes,
    rssKib: processes.reduce((sum, p) => sum + p.rssKib, 0),
    pssKib: processes.reduce((sum, p) => sum + p.pssKib, 0),
  };
}

// ---------------------------------------------------------------------------------------------
// Statistics and the report.

interface Stats {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly max: number;
}

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

function stats(values: readonly number[]): Stats {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

const f1 = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : "—");
const row = (label: string, s: Stats): string =>
  `| ${label} | ${f1(s.p50)} | ${f1(s.p90)} | ${f1(s.max)} | ${s.n} |`;
const mib = (kib: number): string => `${(kib / 1024).toFixed(1)} MiB`;
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

/** The commit measured, and which source files differed from it (work in progress, say). */
function codeState(): string {
  const git = (...args: string[]): string =>
    execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trimEnd();
  try {
    const head = git("rev-parse", "--short", "HEAD");
    const changed = git("status", "--porcelain", "--", ":/apps/daemon/src", ":/packages")
      .split("\n")
      .map((line) => line.slice(3).trim())
      .filter((path) => path !== "" && !path.includes("/bench/"));
    return changed.length === 0
      ? `commit \`${head}\``
      : `commit \`${head}\` with uncommitted changes to ${changed.map((path) => `\`${path}\``).join(", ")}`;
  } catch {
    return "commit unknown (no git)";
  }
}

async function writeBlock(block: string): Promise<string> {
  const out = fileURLToPath(new URL("../../BENCHMARKS.md", import.meta.url));
  let text = await readFile(out, "utf8").catch(() => "");
  const begin = text.indexOf(BLOCK_BEGIN);
  const end = text.indexOf(BLOCK_END);
  if (begin !== -1 && end > begin) {
    text = `${text.slice(0, begin)}${block}${text.slice(end + BLOCK_END.length)}`;
  } else {
    // After the hand-written marker, which `turns.bench.ts` keeps with all that follows it.
    if (!text.includes(HAND_WRITTEN)) text = `${text.trimEnd()}\n\n${HAND_WRITTEN}\n`;
    text = `${text.trimEnd()}\n\n${block}\n`;
  }
  const formatted = await format(text, { ...(await resolveConfig(out)), filepath: out });
  await writeFile(out, formatted);
  return out;
}

async function main(): Promise<void> {
  if (!realClaudeSuiteCanRun("The daemon's warm-turn benchmark")) return;
  const began = performance.now();
  const loadBefore = load();
  const dir = await mkdtemp(join(tmpdir(), "talkide-daemon-warm-bench-"));
  const api = await startFakeMessagesApi({ reply: onModelRequest });
  const daemons: BenchDaemon[] = [];
  try {
    const cliEnv = (home: string): Record<string, string> =>
      realClaudeEnv({
        baseUrl: api.url,
        home,
        extra: { TMPDIR: join(home, "tmp"), CLAUDE_CODE_MAX_RETRIES: "0" },
      });
    for (const home of ["home-daemons", "home-bare"]) {
      await mkdir(join(dir, home, "tmp"), { recursive: true });
    }
    const daemonEnv = cliEnv(join(dir, "home-daemons"));
    const bareEnv = cliEnv(join(dir, "home-bare"));
    const bareWorkspace = join(dir, "bare-ws");
    await mkdir(bareWorkspace, { recursive: true });

    const cold = await startBenchDaemon(dir, "cold", 0, daemonEnv);
    daemons.push(cold);
    const warm = await startBenchDaemon(dir, "warm", CAP, daemonEnv);
    daemons.push(warm);

    // Each daemon's first turn starts the conversation's session; every later one resumes it.
    await daemonTurn(cold, CONVERSATION);
    await lastProcessEnded();
    await daemonTurn(warm, CONVERSATION);

    const coldSamples: TurnSample[] = [];
    const warmSamples: TurnSample[] = [];
    const bareSamples: BareSample[] = [];
    // The bare runs spread evenly over the measured rounds.
    const bareRounds = new Set(
      Array.from({ length: BARE_RUNS }, (_, k) => Math.floor((k * ROUNDS) / BARE_RUNS)),
    );
    for (let round = -WARMUP_ROUNDS; round < ROUNDS; round += 1) {
      const measured = round >= 0;
      const c = await daemonTurn(cold, CONVERSATION);
      // A cold turn's process ends after its result; not while the next row is measured.
      await lastProcessEnded();
      const w = await daemonTurn(warm, CONVERSATION);
      const bare =
        !measured || bareRounds.has(round) ? await bareRun(bareWorkspace, bareEnv) : null;
      if (measured) {
        coldSamples.push(c);
        warmSamples.push(w);
        if (bare !== null) bareSamples.push(bare);
      }
      process.stdout.write(
        `round ${round}: cold ${f1(c.completed)} ms (${c.process}/${c.coldReason}), warm ${f1(w.completed)} ms (${w.process}), bare ${bare === null ? "—" : `${f1(bare.result)} ms`}\n`,
      );
    }

    // Memory: the measured conversation's kept process, then the cap filled.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const one = await keptMemory(warm.runtime);
    for (let i = 2; i <= CAP; i += 1) await daemonTurn(warm, `c-bench-${i}`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const full = await keptMemory(warm.runtime);
    const loadAfter = load();
    const turnsListed = await warm.api.turns();
    const coldTurnsListed = await cold.api.turns();

    // ---- numbers
    const of = (samples: readonly TurnSample[], pick: (s: TurnSample) => number) =>
      stats(samples.map(pick));
    const coldFirst = of(coldSamples, (s) => s.firstRequest);
    const coldDone = of(coldSamples, (s) => s.completed);
    const warmFirst = of(warmSamples, (s) => s.firstRequest);
    const warmDone = of(warmSamples, (s) => s.completed);
    const bareFirst = stats(bareSamples.map((s) => s.firstRequest));
    const bareResult = stats(bareSamples.map((s) => s.result));
    const bareExit = stats(bareSamples.map((s) => s.exit));
    const cliOwn = of(warmSamples, (s) => s.result - s.written);
    const overhead = of(warmSamples, (s) => s.completed - (s.result - s.written));
    const coldCliOwn = of(coldSamples, (s) => s.result - s.written);
    const coldOverhead = of(coldSamples, (s) => s.completed - (s.result - s.written));
    const phases: Array<[string, (s: TurnSample) => number]> = [
      ["intake: POST sent → `delivery.accepted`", (s) => s.accepted],
      [
        "`delivery.accepted` → `turn.started` (queue claim, workspace check, session, turn environment, digest, warm checkout, turn row; warm: with its process)",
        (s) => s.started - s.accepted,
      ],
      [
        "`turn.started` → `turn.process` (warm: none; cold: transcript written, process spawned, process recorded; both: the turn's env file)",
        (s) => s.processEvent - s.started,
      ],
      ["`turn.process` → line written", (s) => s.written - s.processEvent],
      ["line written → first model request (the CLI)", (s) => s.firstRequest - s.written],
      ["first model request → `result` parsed (the CLI)", (s) => s.result - s.firstRequest],
      [
        "`result` parsed → `delivery.completed` (result, transcript and session stored)",
        (s) => s.completed - s.result,
      ],
    ];
    const phaseRow = ([label, pick]: [string, (s: TurnSample) => number]): string => {
      const w = of(warmSamples, pick);
      const c = of(coldSamples, pick);
      return `| ${label} | ${f1(w.p50)} | ${f1(w.p90)} | ${f1(w.max)} | ${f1(c.p50)} | ${f1(c.p90)} |`;
    };
    const warmKinds = warmSamples.filter((s) => s.process === "warm").length;
    const coldKinds = coldSamples.filter(
      (s) => s.process === "cold" && s.coldReason === "warm_disabled",
    ).length;
    const requestsPerTurn = (values: readonly number[]) =>
      [...new Set(values)].sort((a, b) => a - b).join(" or ");
    const ratio = warmDone.p50 / bareResult.p50;
    const firstRatio = warmFirst.p50 / bareFirst.p50;
    const overheadMet = overhead.p50 < 10;
    const ratioMet = ratio <= 0.3;
    const minutes = (performance.now() - began) / 60_000;
    const firstCarried = [...coldSamples, ...warmSamples].filter(
      (s) => s.firstRequest === s.carryingRequest,
    ).length;
    const cpu = cpus();
    const date = new Date().toISOString().slice(0, 10);

    const block = [
      BLOCK_BEGIN,
      "",
      "## Warm turns: the real `claude` CLI, kept or started",
      "",
      "Written by `node --conditions=@talkide/source src/bench/warm-turns.bench.ts` (the second step",
      "of `pnpm --filter @talkide/daemon run bench`), between its own markers after the",
      "hand-written marker, so `turns.bench.ts` keeps it and this benchmark replaces only it.",
      "",
      `- ${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${osType()} ${release()}, Node ${process.version}, date ${date}`,
      `- \`claude\` ${REAL_CLAUDE_VERSION} (the pinned native binary) against the stand-in Messages API on loopback (\`startFakeMessagesApi\`), which answers every request at once with a short text`,
      `- code: ${codeState()}`,
      `- load average (\`uptime\`) at the start: ${loadBefore}; at the end: ${loadAfter} (other work shared the machine)`,
      `- ${WARMUP_ROUNDS} warm-up rounds, then ${ROUNDS} measured rounds; the whole run took ${minutes.toFixed(1)} min`,
      "",
      "Two in-process daemons, embedded database each (no `DATABASE_URL`), concurrency 1, one",
      `agent, one conversation each: _cold_ runs with \`warmProcesses: 0\` (every turn a new process`,
      `with \`--resume\`, cold reason \`warm_disabled\`), _warm_ with the default cap of ${CAP} (the`,
      "conversation's process kept, nothing changed between turns). Each daemon's first turn",
      "starts the session and is not measured. A round is one cold turn, one warm turn and, in",
      `${BARE_RUNS} of the ${ROUNDS} rounds, one _bare_ run: \`claude -p --output-format stream-json --verbose\`,`,
      "the prompt on stdin, a fresh session each time. Turns run one after another; the process",
      `a cold turn leaves is waited for, and each measurement starts after a ${SETTLE_MS} ms pause.`,
      "",
      "Clocks: _accepted_ is when the client sends `POST /v1/agents/:id/deliveries`; _first",
      "request_ is when the first `POST /v1/messages` of the turn has reached the stand-in (its",
      "body read); _completed_ is the `delivery.completed` event on the daemon's event bus (an",
      "in-process subscription, no polling: the result is stored). For the bare run the clock",
      "starts at `spawn` and ends at its `result` event on stdout.",
      "",
      "| row (ms) | p50 | p90 | max | n |",
      "| --- | --- | --- | --- | --- |",
      row("cold turn: accepted → first request", coldFirst),
      row("cold turn: accepted → completed", coldDone),
      row("warm turn: accepted → first request", warmFirst),
      row("warm turn: accepted → completed", warmDone),
      row("bare `claude -p`: spawn → first request", bareFirst),
      row("bare `claude -p`: spawn → `result` event", bareResult),
      row("bare `claude -p`: spawn → exit", bareExit),
      "",
      `Turn kinds as the daemon recorded them: ${warmKinds} of ${warmSamples.length} measured warm-row turns ran warm, ${coldKinds} of ${coldSamples.length} cold-row turns ran cold (\`warm_disabled\`); GET /v1/turns lists ${turnsListed.filter((t) => t.process === "warm").length} warm and ${turnsListed.filter((t) => t.process === "cold").length} cold turns for the warm daemon (with the memory turns below), ${coldTurnsListed.filter((t) => t.process === "cold").length} cold for the other. In ${firstCarried} of ${coldSamples.length + warmSamples.length} daemon turns the first model request was the one carrying the turn's message. Model requests per turn: cold ${requestsPerTurn(coldSamples.map((s) => s.modelRequests))}, warm ${requestsPerTurn(warmSamples.map((s) => s.modelRequests))}, bare ${requestsPerTurn(bareSamples.map((s) => s.modelRequests))}.`,
      "",
      "### The daemon's own share of a warm turn",
      "",
      "The CLI's own turn is timed inside the daemon's process: from the moment",
      "`WarmClaudeProcess.runTurn` writes the stream-json line to the kept process's stdin to the",
      "moment it has parsed the `result` event (the benchmark wraps that method to stamp both",
      "ends). _Daemon overhead_ is, per turn, accepted → completed minus that; it includes the",
      "HTTP intake, the work queue, the database writes before and after, the turn environment,",
      "the warm checkout, and this process's event loop shared with the stand-in API and the",
      "client.",
      "",
      "| warm turn (ms) | p50 | p90 | max | n |",
      "| --- | --- | --- | --- | --- |",
      row("CLI's own turn: line written → `result` parsed", cliOwn),
      row("**daemon overhead**: accepted → completed minus the CLI's own turn", overhead),
      "",
      "Where the time goes, per turn between the daemon's own events (cold turns alongside):",
      "",
      "| phase (ms) | warm p50 | warm p90 | warm max | cold p50 | cold p90 |",
      "| --- | --- | --- | --- | --- | --- |",
      ...phases.map(phaseRow),
      "",
      `For the cold turns the same subtraction (CLI ${f1(coldCliOwn.p50)} ms, rest ${f1(coldOverhead.p50)} ms at p50) means less: their process is spawned before the line is written, so part of its start-up counts as the rest.`,
      "",
      "### Memory of kept processes",
      "",
      "VmRSS from `/proc/<pid>/status` of each kept pid (`runtime.warm.pids()`) and of every",
      "process in its process group or below it; PSS (`/proc/<pid>/smaps_rollup`) counts pages",
      "shared between the kept processes (the binary's) once in total, so it is what they cost",
      `together. Measured 2 s after the last turn; the cap is filled with ${CAP - 1} more conversations`,
      "of one turn each.",
      "",
      "| kept | processes | VmRSS | PSS |",
      "| --- | --- | --- | --- |",
      `| 1 (the measured conversation, after ${ROUNDS + WARMUP_ROUNDS + 1} turns) | ${one.processes.length} | ${mib(one.rssKib)} | ${mib(one.pssKib)} |`,
      `| ${full.kept} (the cap) | ${full.processes.length} | ${mib(full.rssKib)} | ${mib(full.pssKib)} |`,
      "",
      `Per process at the cap (VmRSS): ${full.processes.map((p) => mib(p.rssKib)).join(", ")}.`,
      "",
      "### Against the goals of issue 15",
      "",
      `- A warm turn at most 0.3× a bare \`claude -p\`: accepted → completed ${f1(warmDone.p50)} ms against spawn → \`result\` ${f1(bareResult.p50)} ms at p50, **${ratio.toFixed(2)}×** — ${ratioMet ? "met" : "not met"} on this run (to the first model request: ${f1(warmFirst.p50)} against ${f1(bareFirst.p50)} ms, ${firstRatio.toFixed(2)}×).`,
      `- The daemon's own overhead under 10 ms at p50: **${f1(overhead.p50)} ms** — ${overheadMet ? "met" : "not met"} on this run.`,
      "",
      BLOCK_END,
    ].join("\n");
    const out = await writeBlock(block);
    process.stdout.write(`\n${block}\n\nwritten to ${out}\n`);
  } finally {
    for (const d of daemons) await d.daemon.stop().catch(() => undefined);
    await api.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
