// Warm-turn benchmark: how long a member's message takes with the real pinned `claude` CLI
// (against a local stand-in Messages API that answers at once) when the project's process is
// kept ("warm") and when it is started with --resume ("cold"), next to a bare
// `claude -p --output-format stream-json --verbose`; how much of a warm turn is the backend's
// own; and how much memory the kept processes hold. Prints a Markdown report for BENCHMARKS.md.
//   pnpm --filter @talkide/be run bench
// BENCH_ONLY=warm runs only the warm rows (embedded, then a server) and prints one line each:
// quick enough to alternate two builds several times on a machine whose speed drifts.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import {
  findBundledClaudePath,
  WarmClaudeProcess,
  type ClaudeTurnResult,
  type WarmProcessOptions,
  type WarmTurnOptions,
} from "@talkide/claude-cli";
import {
  REAL_CLAUDE_VERSION,
  realClaudeEnv,
  startFakeMessagesApi,
  type RecordedRequest,
} from "@talkide/claude-cli/testing";
import { createTestDatabase } from "@talkide/test-postgres";
import { loadConfig } from "../config.ts";
import { createUser } from "../domain/users.ts";
import { createLogger } from "@talkide/service-kit";
import { startService, type RunningService } from "../service.ts";
import { api, defaultProject } from "../test-support/harness.ts";
import { benchPostgres } from "./bench-postgres.ts";
import { TimedClient, type TimedEvent } from "./timed-client.ts";

const TURNS = Number(process.env.BENCH_TURNS ?? 30);
const BARE_RUNS = Number(process.env.BENCH_BARE_RUNS ?? 20);
const ONLY_WARM = process.env.BENCH_ONLY === "warm";
const WARMUP = 2;
const CAP = 4;

const claudePath = findBundledClaudePath(import.meta.url);
if (claudePath === null) {
  throw new Error(
    `The pinned claude binary (@anthropic-ai/claude-code ${REAL_CLAUDE_VERSION}) is not installed: run \`pnpm install\` in the repository root.`,
  );
}
const CLAUDE: string = claudePath;

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

interface Stats {
  readonly p50: number;
  readonly p90: number;
  readonly max: number;
}

function stats(values: readonly number[]): Stats {
  if (values.some((v) => !Number.isFinite(v))) throw new Error("a sample was not recorded");
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), max: sorted.at(-1) ?? NaN };
}

const f1 = (value: number): string => value.toFixed(1);
const cells = (s: Stats): string => `${f1(s.p50)} | ${f1(s.p90)} | ${f1(s.max)}`;
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

const root = mkdtempSync(join(tmpdir(), "talkide-be-warm-bench-"));

/**
 * What one measured turn or run stamped, all on this process's `performance.now()` clock (the
 * service, the stand-in API and the client share the process).
 */
interface Probe {
  /** A word only this turn's message carries, to tell its model call from any other. */
  readonly token: string;
  /** Every `POST /v1/messages` that arrived while the probe was current. */
  readonly requests: Array<{ at: number; carriesMessage: boolean }>;
  /** A cold turn: `WarmClaudeProcess.start` returned (the process is spawned). */
  spawned: number | null;
  /** `runTurn` called: the message's stream-json line is written in the same call. */
  lineWritten: number | null;
  /** The CLI's `result` event parsed by the service. */
  resultEvent: number | null;
}

let probe: Probe | null = null;
const newProbe = (token: string): Probe => {
  probe = { token, requests: [], spawned: null, lineWritten: null, resultEvent: null };
  return probe;
};

// The stand-in Messages API stamps each model call when it has read the request.
const fake = await startFakeMessagesApi({
  reply: (request: RecordedRequest) => {
    const at = performance.now();
    const current = probe;
    if (current !== null) {
      current.requests.push({ at, carriesMessage: request.rawBody.includes(current.token) });
    }
    return { text: "Done." };
  },
});

// Stamps inside the service: a wrapper around the class every turn's process is (the service
// and this file load the same module). The stamps cost a `performance.now()` each.
const originalStart = WarmClaudeProcess.start.bind(WarmClaudeProcess);
WarmClaudeProcess.start = async (options: WarmProcessOptions): Promise<WarmClaudeProcess> => {
  const started = await originalStart(options);
  if (probe !== null) probe.spawned ??= performance.now();
  return started;
};
const originalRunTurn: (
  this: WarmClaudeProcess,
  options: WarmTurnOptions,
) => Promise<ClaudeTurnResult> =
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its `this` below
  WarmClaudeProcess.prototype.runTurn;
WarmClaudeProcess.prototype.runTurn = function (
  this: WarmClaudeProcess,
  options: WarmTurnOptions,
): Promise<ClaudeTurnResult> {
  const current = probe;
  if (current !== null) current.lineWritten = performance.now();
  return originalRunTurn.call(this, {
    ...options,
    onEvent: (event) => {
      if (current !== null && event.type === "result") current.resultEvent ??= performance.now();
      options.onEvent?.(event);
    },
  });
};

async function startBenchService(
  name: string,
  env: Record<string, string>,
): Promise<RunningService> {
  const dataDir = join(root, name);
  mkdirSync(dataDir);
  const config = loadConfig(
    {
      TALKIDE_DATA_DIR: dataDir,
      TALKIDE_WORKSPACES_DIR: join(dataDir, "workspaces"),
      TALKIDE_PORT: "0",
      TALKIDE_CLAUDE_PATH: CLAUDE,
      TALKIDE_DEMO: "false",
      TALKIDE_LOG_LEVEL: "info",
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: fake.url,
      ...env,
    },
    dataDir,
  );
  // The production log level, into nothing: the service formats every line as it would.
  const sink = new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });
  return startService({
    config,
    logger: createLogger("talkide-be", config.logLevel, sink),
    print: () => undefined,
  });
}

/** The client runs in a thread of its own, as a real client is another process. */
const client = new TimedClient();

/** Posts a message and reads its event stream, stamping each event when it arrives. */
function timedMessage(
  service: RunningService,
  token: string,
  projectId: number,
  text: string,
): Promise<{ sent: number; events: TimedEvent[] }> {
  return client.message({ url: service.url, token, projectId, text });
}

interface TurnSample {
  readonly toFirstRequest: number;
  readonly toSucceeded: number;
  /** The CLI's own share: line written (warm) or process spawned (cold) → result event. */
  readonly cli: number;
  /** Message sent → line written (warm) or process spawned (cold). */
  readonly before: number;
  /** Message sent → `turn.queued` / `turn.started` read by the client. */
  readonly queued: number;
  readonly started: number;
  /** Spawned (cold) / line written (warm) → the model call carrying the message. */
  readonly cliToRequest: number;
  /** Result event → `turn.succeeded` read by the client. */
  readonly after: number;
  readonly modelCalls: number;
}

async function newProject(service: RunningService, token: string): Promise<number> {
  const created = await api<{ project: { id: number } }>(
    service,
    token,
    "POST",
    "/v1/projects",
    defaultProject,
  );
  if (created.status !== 201 && created.status !== 200)
    throw new Error(`project not created: ${created.text}`);
  return created.body.project.id;
}

let messageCounter = 0;

/** One turn of the service, measured; `expect` is the process kind turn.started must name. */
async function backendTurn(
  service: RunningService,
  token: string,
  projectId: number,
  expect: "warm" | "cold",
  expectedReason?: string,
): Promise<TurnSample> {
  messageCounter += 1;
  const word = `benchword${messageCounter}x`;
  const current = newProbe(word);
  const { sent, events } = await timedMessage(
    service,
    token,
    projectId,
    `Odpověz jedním slovem (${word}).`,
  );
  probe = null;
  const queued = events.find((e) => e.event === "turn.queued");
  const started = events.find((e) => e.event === "turn.started");
  const succeeded = events.find((e) => e.event === "turn.succeeded");
  if (queued === undefined || started === undefined || succeeded === undefined) {
    throw new Error(`the turn did not succeed: ${JSON.stringify(events.at(-1))}`);
  }
  if (started.data.process !== expect) {
    throw new Error(`expected a ${expect} turn, got ${JSON.stringify(started.data)}`);
  }
  if (expectedReason !== undefined && started.data.coldReason !== expectedReason) {
    throw new Error(`expected cold reason ${expectedReason}, got ${JSON.stringify(started.data)}`);
  }
  const firstRequest = current.requests.find((r) => r.carriesMessage)?.at ?? NaN;
  const cliStart = expect === "warm" ? current.lineWritten : current.spawned;
  if (cliStart === null || current.resultEvent === null)
    throw new Error("a stamp inside the service is missing");
  return {
    toFirstRequest: firstRequest - sent,
    toSucceeded: succeeded.at - sent,
    cli: current.resultEvent - cliStart,
    before: cliStart - sent,
    queued: queued.at - sent,
    started: started.at - sent,
    cliToRequest: firstRequest - cliStart,
    after: succeeded.at - current.resultEvent,
    modelCalls: current.requests.length,
  };
}

/**
 * A user and a project whose first turn starts the session, then the measured turns (after
 * the warm-up ones), each of the `expect`ed kind.
 */
async function measuredTurns(
  service: RunningService,
  expect: "warm" | "cold",
  expectedReason?: string,
): Promise<{ samples: TurnSample[]; token: string }> {
  const { token } = await createUser(service.database.db, {
    email: "bench@example.com",
    displayName: "Bench",
  });
  const projectId = await newProject(service, token);
  await backendTurn(service, token, projectId, "cold", "new_session");
  const samples: TurnSample[] = [];
  for (let i = 0; i < WARMUP + TURNS; i += 1) {
    const sample = await backendTurn(service, token, projectId, expect, expectedReason);
    if (i >= WARMUP) samples.push(sample);
  }
  return { samples, token };
}

/** Waits until the pool keeps `count` processes (a turn's process is kept just after it ends). */
async function keptProcesses(service: RunningService, count: number): Promise<number[]> {
  const deadline = performance.now() + 10_000;
  while (service.warm.size < count) {
    if (performance.now() > deadline) throw new Error(`${count} processes were not kept`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return service.warm.pids();
}

/** `field` of /proc/<pid>/<file> in kB, 0 when the process is gone. */
function procKb(pid: number, file: string, field: string): number {
  try {
    const line = readFileSync(`/proc/${pid}/${file}`, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${field}:`));
    return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Every process of process group `pgid` (a warm process leads its own group). */
function processGroup(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) members.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return members;
}

interface GroupMemory {
  readonly processes: number;
  readonly rssKb: number;
  readonly pssKb: number;
}

function groupMemory(pgid: number): GroupMemory {
  const members = processGroup(pgid);
  return {
    processes: members.length,
    rssKb: members.reduce((sum, pid) => sum + procKb(pid, "status", "VmRSS"), 0),
    pssKb: members.reduce((sum, pid) => sum + procKb(pid, "smaps_rollup", "Pss"), 0),
  };
}

const mib = (kb: number): string => (kb / 1024).toFixed(0);

/** A bare `claude -p … --verbose`, the prompt on stdin: spawn → first model call, result, exit. */
async function bareRun(
  home: string,
  cwd: string,
): Promise<{ toFirstRequest: number; toResult: number; toExit: number; modelCalls: number }> {
  messageCounter += 1;
  const word = `benchword${messageCounter}x`;
  const current = newProbe(word);
  const spawned = performance.now();
  const child = spawn(CLAUDE, ["-p", "--output-format", "stream-json", "--verbose"], {
    cwd,
    env: realClaudeEnv({ baseUrl: fake.url, home }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end(`Odpověz jedním slovem (${word}).`);
  const stamps: { result: number | null } = { result: null };
  let pending = "";
  let stderr = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith("{") && line.includes('"type":"result"')) {
        stamps.result ??= performance.now();
      }
    }
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const closed = new Promise((resolve) => child.once("close", resolve));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const exited = performance.now();
  await closed;
  probe = null;
  const result = stamps.result;
  if (code !== 0 || result === null) throw new Error(`bare claude failed (${code}): ${stderr}`);
  const firstRequest = current.requests.find((r) => r.carriesMessage)?.at ?? NaN;
  return {
    toFirstRequest: firstRequest - spawned,
    toResult: result - spawned,
    toExit: exited - spawned,
    modelCalls: current.requests.length,
  };
}

const lines: string[] = [];
const say = (line: string): void => {
  lines.push(line);
};
const progress = (text: string): void => {
  process.stderr.write(`warm-turns bench: ${text} (load ${load()})\n`);
};
const loads: Record<string, string> = { start: load() };

/** Message → line written, result → `turn.succeeded`, their sum, p50 (and the sum's p90), ms. */
function overheadLine(row: string, samples: readonly TurnSample[]): string {
  const p50 = (pick: (s: TurnSample) => number): string => f1(stats(samples.map(pick)).p50);
  return `${row}: before ${p50((s) => s.before)} after ${p50((s) => s.after)} overhead ${p50((s) => s.before + s.after)} p90 ${f1(stats(samples.map((s) => s.before + s.after)).p90)}`;
}

/** The warm rows alone, embedded then on a server (see BENCH_ONLY above). */
async function warmRowsOnly(): Promise<void> {
  const embedded = await startBenchService("warm", {});
  try {
    say(overheadLine("embedded", (await measuredTurns(embedded, "warm")).samples));
  } finally {
    await embedded.close();
  }
  const postgres = await benchPostgres();
  try {
    if (postgres.adminUrl === null) return;
    const database = await createTestDatabase(postgres.adminUrl);
    const onServer = await startBenchService("warm-server", { DATABASE_URL: database.url });
    try {
      say(overheadLine("server", (await measuredTurns(onServer, "warm")).samples));
    } finally {
      await onServer.close();
      await database.drop();
    }
  } finally {
    await postgres.stop();
  }
}

try {
  if (ONLY_WARM) {
    await warmRowsOnly();
  } else {
    // (c) bare `claude -p`, one isolated home for every run (its config exists after the first).
    const bareHome = join(root, "bare-home");
    const bareCwd = join(root, "bare-cwd");
    mkdirSync(bareHome);
    mkdirSync(bareCwd);
    const bare = [];
    for (let i = 0; i < WARMUP + BARE_RUNS; i += 1) {
      const run = await bareRun(bareHome, bareCwd);
      if (i >= WARMUP) bare.push(run);
    }
    loads.bare = load();
    progress("bare runs done");

    // (a) cold: a cap of 0, so every turn starts `claude --resume`; one project, one writer.
    const coldService = await startBenchService("cold", { TALKIDE_WARM_PROCESSES: "0" });
    let cold: TurnSample[];
    try {
      ({ samples: cold } = await measuredTurns(coldService, "cold", "warm_disabled"));
    } finally {
      await coldService.close();
    }
    loads.cold = load();
    progress("cold turns done");

    // (b) warm: the default cap, the same project and writer, nothing changed between turns.
    const warmService = await startBenchService("warm", {});
    let warm: TurnSample[];
    let oneAfterMany: GroupMemory;
    let atCap: GroupMemory[];
    try {
      const measured = await measuredTurns(warmService, "warm");
      warm = measured.samples;
      loads.warm = load();
      progress("warm turns done");

      // Memory: the process kept after this project's turns, then the cap's worth of projects.
      const [first] = await keptProcesses(warmService, 1);
      if (first === undefined) throw new Error("no process kept");
      oneAfterMany = groupMemory(first);
      for (let p = 1; p < CAP; p += 1) {
        const other = await newProject(warmService, measured.token);
        await backendTurn(warmService, measured.token, other, "cold", "new_session");
      }
      atCap = (await keptProcesses(warmService, CAP)).map(groupMemory);
    } finally {
      await warmService.close();
    }
    loads.end = load();

    // (b) again on a PostgreSQL server on loopback (the statements leave this thread there).
    let warmOnServer: TurnSample[] = [];
    const postgres = await benchPostgres();
    try {
      if (postgres.adminUrl !== null) {
        const database = await createTestDatabase(postgres.adminUrl);
        const serverService = await startBenchService("warm-server", {
          DATABASE_URL: database.url,
        });
        try {
          ({ samples: warmOnServer } = await measuredTurns(serverService, "warm"));
        } finally {
          await serverService.close();
          await database.drop();
        }
        loads.server = load();
        progress("warm turns on a server done");
      }
    } finally {
      await postgres.stop();
    }

    const bareResult = stats(bare.map((r) => r.toResult));
    const warmDone = stats(warm.map((s) => s.toSucceeded));
    const overhead = stats(warm.map((s) => s.before + s.after));
    const overheadOnServer =
      warmOnServer.length === 0 ? null : stats(warmOnServer.map((s) => s.before + s.after));
    const ratio = warmDone.p50 / bareResult.p50;

    say("## Warm turns: the real `claude` CLI, kept process against a new one");
    say("");
    say(
      `- ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, claude ${REAL_CLAUDE_VERSION} (pinned), ${new Date().toISOString().slice(0, 10)}`,
    );
    say(
      `- load average (1, 5, 15 min): start ${loads.start}; after bare ${loads.bare}; after cold ${loads.cold}; after warm ${loads.warm}; after memory ${loads.end}${loads.server === undefined ? "" : `; after the server row ${loads.server}`}`,
    );
    say(
      `- ${TURNS} measured turns per backend row after ${WARMUP} warm-up turns (and the project's first turn, which starts the session); ${BARE_RUNS} bare runs after ${WARMUP} warm-up runs; embedded database (PGlite) unless the row says a server; the stand-in Messages API answers "Done." at once; the client in a thread of its own`,
    );
    say("");
    say(
      "| row | start → first model call p50 | p90 | max | start → done p50 | p90 | max | model calls per turn |",
    );
    say("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    const calls = (values: number[]): string => [...new Set(values)].sort().join("/");
    say(
      `| (a) backend, cold (\`--resume\`, cap 0): message → …, → \`turn.succeeded\` | ${cells(stats(cold.map((s) => s.toFirstRequest)))} | ${cells(stats(cold.map((s) => s.toSucceeded)))} | ${calls(cold.map((s) => s.modelCalls))} |`,
    );
    say(
      `| (b) backend, warm (kept process): message → …, → \`turn.succeeded\` | ${cells(stats(warm.map((s) => s.toFirstRequest)))} | ${cells(warmDone)} | ${calls(warm.map((s) => s.modelCalls))} |`,
    );
    if (warmOnServer.length > 0) {
      say(
        `| (b) backend, warm, PostgreSQL server: message → …, → \`turn.succeeded\` | ${cells(stats(warmOnServer.map((s) => s.toFirstRequest)))} | ${cells(stats(warmOnServer.map((s) => s.toSucceeded)))} | ${calls(warmOnServer.map((s) => s.modelCalls))} |`,
      );
    }
    say(
      `| (c) bare \`claude -p\`: spawn → …, → \`result\` event | ${cells(stats(bare.map((r) => r.toFirstRequest)))} | ${cells(bareResult)} | ${calls(bare.map((r) => r.modelCalls))} |`,
    );
    say(
      `| (c) bare \`claude -p\`: spawn → process exit | | | | ${cells(stats(bare.map((r) => r.toExit)))} | |`,
    );
    say("");
    say("Where a backend turn's time goes (ms):");
    say("");
    say("| share | cold p50 | p90 | warm p50 | p90 | warm, server p50 | p90 |");
    say("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    const both = (pick: (s: TurnSample) => number): string => {
      const c = stats(cold.map(pick));
      const w = stats(warm.map(pick));
      const onServer =
        warmOnServer.length === 0
          ? "| – | –"
          : `| ${f1(stats(warmOnServer.map(pick)).p50)} | ${f1(stats(warmOnServer.map(pick)).p90)}`;
      return `${f1(c.p50)} | ${f1(c.p90)} | ${f1(w.p50)} | ${f1(w.p90)} ${onServer}`;
    };
    say(`| message sent → \`turn.queued\` at the client | ${both((s) => s.queued)} |`);
    say(`| message sent → \`turn.started\` at the client | ${both((s) => s.started)} |`);
    say(
      `| backend before the CLI: message sent → process spawned (cold) / line written (warm) | ${both((s) => s.before)} |`,
    );
    say(
      `| the CLI: spawned (cold) / line written (warm) → its model call arrives | ${both((s) => s.cliToRequest)} |`,
    );
    say(
      `| the CLI: spawned (cold) / line written (warm) → \`result\` event | ${both((s) => s.cli)} |`,
    );
    say(
      `| backend after the CLI: \`result\` event → \`turn.succeeded\` at the client | ${both((s) => s.after)} |`,
    );
    say(`| backend overhead per turn (before + after) | ${both((s) => s.before + s.after)} |`);
    say("");
    say(
      "Memory of the kept processes (each a process group; RSS from VmRSS, PSS from smaps_rollup):",
    );
    say("");
    say("| kept | processes | RSS (MiB) | PSS (MiB) |");
    say("| --- | ---: | ---: | ---: |");
    say(
      `| one, after ${WARMUP + TURNS + 1} turns of its project | ${oneAfterMany.processes} | ${mib(oneAfterMany.rssKb)} | ${mib(oneAfterMany.pssKb)} |`,
    );
    for (const [i, m] of atCap.entries()) {
      say(`| at the cap: process ${i + 1} | ${m.processes} | ${mib(m.rssKb)} | ${mib(m.pssKb)} |`);
    }
    say(
      `| at the cap (${CAP}), total | ${atCap.reduce((s, m) => s + m.processes, 0)} | ${mib(atCap.reduce((s, m) => s + m.rssKb, 0))} | ${mib(atCap.reduce((s, m) => s + m.pssKb, 0))} |`,
    );
    say("");
    say(
      `Goal 1 (warm message → \`turn.succeeded\` ≤ 0.3 × bare spawn → \`result\`, at p50): ${f1(warmDone.p50)} / ${f1(bareResult.p50)} ms = ${ratio.toFixed(2)}× — ${ratio <= 0.3 ? "met" : "not met"}.`,
    );
    say(
      `Goal 2 (the backend's own overhead on a warm turn < 10 ms at p50): embedded database ${f1(overhead.p50)} ms — ${overhead.p50 < 10 ? "met" : "not met"}${overheadOnServer === null ? "" : `; PostgreSQL server ${f1(overheadOnServer.p50)} ms — ${overheadOnServer.p50 < 10 ? "met" : "not met"}`}.`,
    );
  }
} finally {
  await client.close();
  await fake.close();
  rmSync(root, { recursive: true, force: true });
}
console.log(lines.join("\n"));
