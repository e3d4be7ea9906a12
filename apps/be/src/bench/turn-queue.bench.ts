// Turn-queue benchmark: how long a message waits before its `claude` is spawned, and how many
// turns per second one, two and three instances run, against the fake `claude` (answers at
// once). Prints a Markdown report for BENCHMARKS.md.
//   pnpm --filter @talkide/be run bench
// The PostgreSQL-server rows need TALKIDE_TEST_PG_URL or the machine's PostgreSQL binaries.
import {
  appendFileSync,
  chmodSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { FAKE_CLAUDE_PATH } from "@talkide/claude-cli/testing";
import { createTestDatabase } from "@talkide/test-postgres";
import { api, defaultProject, sendMessage, startHarness } from "../test-support/harness.ts";
import { startServiceChild, type ServiceChild } from "../test-support/service-child-process.ts";
import { benchPostgres } from "./bench-postgres.ts";

const TURNS = Number(process.env.BENCH_TURNS ?? 60);
const WARMUP = 5;
const THROUGHPUT_PROJECTS = 6;
const THROUGHPUT_MESSAGES = 10;

const now = (): number => performance.timeOrigin + performance.now();

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;
const root = mkdtempSync(join(tmpdir(), "talkide-be-queue-bench-"));
const report: string[] = [];
const say = (line: string): void => {
  report.push(line);
  appendFileSync(join(root, "progress.log"), `${line}\n`);
};

/**
 * The spawned "claude": stamps the wall clock (ns) and the turn id, then runs the fake CLI.
 * The stamp costs one `date` process, the same for every row.
 */
const spawnLog = join(root, "spawns.log");
const claudeWrapper = join(root, "claude");
writeFileSync(
  claudeWrapper,
  `#!/bin/sh\nprintf '%s %s\\n' "$(date +%s%N)" "$TALKIDE_TURN_ID" >> '${spawnLog}'\nexec '${FAKE_CLAUDE_PATH}' "$@"\n`,
);
chmodSync(claudeWrapper, 0o755);

function spawnTimes(): Map<string, number> {
  const times = new Map<string, number>();
  let text: string;
  try {
    text = readFileSync(spawnLog, "utf8");
  } catch {
    return times;
  }
  for (const line of text.split("\n")) {
    const [ns, turnId] = line.split(" ");
    if (ns !== undefined && turnId !== undefined && turnId !== "") {
      times.set(turnId, Number(BigInt(ns) / 1000n) / 1000);
    }
  }
  return times;
}

/** Message sent → `claude` spawned, one turn at a time on one project of one instance. */
async function acceptToSpawn(databaseUrl: string | null): Promise<{ p50: number; p99: number }> {
  const harness = await startHarness({
    databaseUrl,
    env: { TALKIDE_CLAUDE_PATH: claudeWrapper, TALKIDE_LOG_LEVEL: "warn" },
  });
  try {
    const user = await harness.createUser({ email: "bench@example.com", displayName: "Bench" });
    const project = await api<{ project: { id: number } }>(
      harness,
      user.token,
      "POST",
      "/v1/projects",
      defaultProject,
    );
    const sent = new Map<string, number>();
    for (let i = 0; i < WARMUP + TURNS; i += 1) {
      const at = now();
      const result = await sendMessage(harness, user.token, project.body.project.id, `zpráva ${i}`);
      const queued = result.events.find((e) => e.event === "turn.queued");
      const turnId = queued?.data.turnId;
      if (typeof turnId !== "string") throw new Error("the stream did not start with turn.queued");
      if (i >= WARMUP) sent.set(turnId, at);
    }
    const spawned = spawnTimes();
    const waits = [...sent]
      .map(([turnId, at]) => (spawned.get(turnId) ?? Number.NaN) - at)
      .sort((a, b) => a - b);
    if (waits.some(Number.isNaN)) throw new Error("a turn's spawn was not recorded");
    return { p50: percentile(waits, 50), p99: percentile(waits, 99) };
  } finally {
    await harness.close();
  }
}

/** Turns per second of `instances` service processes on one server database. */
async function throughput(adminUrl: string, instances: number): Promise<number> {
  const database = await createTestDatabase(adminUrl);
  const children: ServiceChild[] = [];
  try {
    for (let i = 0; i < instances; i += 1) {
      children.push(
        await startServiceChild(join(root, `throughput-${instances}-${i}`), {
          DATABASE_URL: database.url,
          TALKIDE_WORKSPACES_DIR: join(root, `throughput-${instances}-workspaces`),
        }),
      );
    }
    const first = children[0] as ServiceChild;
    const token = (await first.waitFor(/TALKIDE_TOKEN=(tkbe_\S+)/))[1] ?? "";
    const projects: number[] = [];
    for (let p = 0; p < THROUGHPUT_PROJECTS; p += 1) {
      const created = await api<{ project: { id: number } }>(
        first,
        token,
        "POST",
        "/v1/projects",
        defaultProject,
      );
      projects.push(created.body.project.id);
    }
    const started = now();
    const turns: Promise<unknown>[] = [];
    for (let k = 0; k < THROUGHPUT_MESSAGES; k += 1) {
      for (const [p, projectId] of projects.entries()) {
        const instance = children[(k + p) % instances] as ServiceChild;
        turns.push(sendMessage(instance, token, projectId, `zpráva ${k}`));
      }
    }
    const results = (await Promise.all(turns)) as Array<{ events: Array<{ event: string }> }>;
    const elapsed = (now() - started) / 1000;
    const failed = results.filter((r) => r.events.at(-1)?.event !== "turn.succeeded").length;
    if (failed > 0) throw new Error(`${failed} turns did not succeed`);
    return results.length / elapsed;
  } finally {
    for (const child of children) {
      child.process.kill("SIGTERM");
      await child.exited;
    }
    await database.drop();
  }
}

const label = process.env.BENCH_LABEL ?? "turn queue (this checkout)";
say(`## ${label}`);
say("");
say(
  `- ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load average at start ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}, ${new Date().toISOString().slice(0, 10)}`,
);
say(`- ${TURNS} turns after ${WARMUP} warm-up turns, one at a time, fake \`claude\``);
say("");
say("| database | message sent → `claude` spawned, p50 | p99 |");
say("| --- | ---: | ---: |");
const embedded = await acceptToSpawn(null);
say(`| embedded (PGlite) | ${ms(embedded.p50)} | ${ms(embedded.p99)} |`);

const postgres = await benchPostgres();
const { adminUrl } = postgres;
try {
  if (adminUrl === null) {
    say("| PostgreSQL server | not measured (no server binaries, no TALKIDE_TEST_PG_URL) | |");
  } else {
    const database = await createTestDatabase(adminUrl);
    try {
      const onServer = await acceptToSpawn(database.url);
      say(`| PostgreSQL server (local) | ${ms(onServer.p50)} | ${ms(onServer.p99)} |`);
    } finally {
      await database.drop();
    }
    say("");
    say(
      `Turns per second, ${THROUGHPUT_PROJECTS} projects × ${THROUGHPUT_MESSAGES} messages sent at once, spread over the instances (service processes on one PostgreSQL server):`,
    );
    say("");
    say("| instances | turns/s |");
    say("| ---: | ---: |");
    // The in-memory lane of earlier releases serialised nothing across instances: measure it with BENCH_INSTANCES=1.
    for (const instances of (process.env.BENCH_INSTANCES ?? "1,2,3").split(",").map(Number)) {
      say(`| ${instances} | ${(await throughput(adminUrl, instances)).toFixed(2)} |`);
    }
  }
} finally {
  await postgres.stop();
  rmSync(root, { recursive: true, force: true });
}
console.log(report.join("\n"));
