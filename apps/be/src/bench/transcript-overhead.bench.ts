// Transcript overhead benchmark (issue 28, part 7): what a successful turn spends on the
// session's transcript after the CLI's result (read the runtime's file, plan what to store,
// store it on the embedded database), at turn 5 and at turn 500 of a conversation whose turns
// carry large tool outputs, with 1 and with 200 project folders beside it. The old way (read
// and hash the whole file every turn) is measured beside the new one (read what the turn
// appended, continue the running digest). Prints a Markdown report for BENCHMARKS.md.
//   pnpm --filter @talkide/be run bench   (this one: node --expose-gc --conditions=@talkide/source src/bench/transcript-overhead.bench.ts)
import { randomUUID } from "node:crypto";
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  planTranscriptWrite,
  readRuntimeTranscript,
  TranscriptLedger,
  type TurnTranscript,
  wholeTurnTranscript,
} from "@talkide/claude-cli";
import {
  engineDb,
  recordSuccess,
  startSession,
  transcriptAfterTurn,
  type EngineDb,
} from "@talkide/turn-engine";
import type { Kysely } from "kysely";
import { openDatabase } from "../db/connect.ts";
import { migrateToLatest } from "../db/migrate.ts";
import type { DatabaseSchema } from "../db/schema.ts";

const REPETITIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const WARMUP = 5;
/** A tool's output in every turn (a file read, a test run): what makes a transcript large. */
const TOOL_OUTPUT_BYTES = 24 * 1024;
const FOLDER = "-srv-talkide-workspaces-p1";

/** One turn's lines as Claude Code appends them: the message, a tool call, its output, the answer. */
function turnLines(turn: number): string {
  const uuid = () => randomUUID();
  const output = `line ${turn}: ${"výstup testů ✓ ".repeat(8)}\n`
    .repeat(Math.ceil(TOOL_OUTPUT_BYTES / 140))
    .slice(0, TOOL_OUTPUT_BYTES);
  return [
    { type: "user", uuid: uuid(), message: { role: "user", content: `Turn ${turn}: oprav test.` } },
    {
      type: "assistant",
      uuid: uuid(),
      message: {
        role: "assistant",
        content: [{ type: "tool_use", name: "Bash", input: { command: "pnpm test" } }],
      },
    },
    {
      type: "user",
      uuid: uuid(),
      message: { role: "user", content: [{ type: "tool_result", content: output }] },
    },
    {
      type: "assistant",
      uuid: uuid(),
      message: { role: "assistant", content: [{ type: "text", text: "Hotovo. ".repeat(60) }] },
    },
  ]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join("");
}

/** A successful turn's store, as the backend's outcome makes it (the engine's `recordSuccess`). */
async function storeTranscript(
  db: EngineDb,
  ledgerOwner: object,
  sessionId: string,
  turnId: string,
  transcript: TurnTranscript,
): Promise<void> {
  await recordSuccess(db, ledgerOwner, {
    sessionId,
    turnId,
    point: { id: transcript.sessionId, at: null },
    costUsd: null,
    transcript,
  });
}

/** Thrown to roll a measured store back. */
class RolledBack extends Error {}

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

interface Scenario {
  readonly folders: number;
  readonly turn: number;
  readonly configDir: string;
  readonly file: string;
  /** The conversation before the measured turn, kept aside and copied in for each repetition. */
  readonly base: string;
  readonly added: string;
  readonly bytes: number;
  readonly runtimeId: string;
  readonly sessionId: string;
  readonly previousTurnId: string;
  readonly turnId: string;
  readonly samples: { old: number[]; read: number[]; store: number[] };
}

/** A conversation at turn `turn - 1`, on disk and in the database, beside `folders - 1` others. */
async function setUp(db: Kysely<DatabaseSchema>, folders: number, turn: number): Promise<Scenario> {
  const configDir = join(root, `cfg-${folders}-${turn}`);
  const projects = join(configDir, "projects");
  for (let i = 1; i < folders; i += 1) {
    mkdirSync(join(projects, `-srv-other-${i}`), { recursive: true });
  }
  mkdirSync(join(projects, FOLDER), { recursive: true });
  const runtimeId = randomUUID();
  const base = join(root, `base-${folders}-${turn}.jsonl`);
  let before = "";
  for (let t = 1; t < turn; t += 1) before += turnLines(t);
  writeFileSync(base, before);
  const added = turnLines(turn);
  // A scope of its own: one open session per scope.
  const session = await startSession(
    engineDb(db),
    { scope: `bench:${randomUUID()}`, owner: "bench" },
    null,
  );
  // Turn ids are not references: any two stand for the previous and the measured turn.
  const previousTurnId = randomUUID();
  // The database holds the transcript as the previous turn stored it.
  await storeTranscript(
    engineDb(db),
    {},
    session.id,
    previousTurnId,
    wholeTurnTranscript({ sessionId: runtimeId, projectDir: FOLDER, content: before }),
  );
  return {
    folders,
    turn,
    configDir,
    file: join(projects, FOLDER, `${runtimeId}.jsonl`),
    base,
    added,
    bytes: Buffer.byteLength(before + added),
    runtimeId,
    sessionId: session.id,
    previousTurnId,
    turnId: randomUUID(),
    samples: { old: [], read: [], store: [] },
  };
}

/**
 * Turn n of the scenario: the new way with its store (rolled back), then the old way (after,
 * so the garbage its whole-file strings leave does not land on the new way's clock).
 */
async function measureTurn(
  db: Kysely<DatabaseSchema>,
  scenario: Scenario,
  keep: boolean,
): Promise<void> {
  const { configDir, file, base, added, runtimeId, sessionId } = scenario;
  // The file as the previous turn left it (a new inode each time), read once as that turn's
  // store read it: the ledger's cursor stands at its end.
  copyFileSync(base, `${file}.tmp`);
  renameSync(`${file}.tmp`, file);
  const owner = {};
  const ledger = TranscriptLedger.of(owner);
  const stored = await transcriptAfterTurn(owner, configDir, sessionId, runtimeId);
  if (stored === null) throw new Error("no transcript");
  ledger.remember(sessionId, scenario.previousTurnId, stored.mark, 1, stored.cursor);
  appendFileSync(file, added);
  // The set-up's whole-file read leaves megabytes of garbage: collected before the clock runs
  // (`--expose-gc`, as the bench script runs it), as the turns' other work would by then.
  (globalThis as { gc?: () => void }).gc?.();

  // The new way: what the turn appended, proven to follow the stored copy.
  let start = performance.now();
  const transcript = await transcriptAfterTurn(owner, configDir, sessionId, runtimeId);
  if (transcript === null) throw new Error("no transcript");
  const plan = ledger.plan(sessionId, transcript);
  const readMs = performance.now() - start;
  if (plan.append?.delta !== added) throw new Error("the new plan did not append the turn");

  // Its store, in a transaction rolled back so every repetition starts from turn n - 1.
  let storeMs = 0;
  await db
    .transaction()
    .execute(async (trx) => {
      const begun = performance.now();
      await storeTranscript(engineDb(trx), owner, sessionId, scenario.turnId, transcript);
      storeMs = performance.now() - begun;
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  // The old way: the whole file read and hashed, compared with the stored copy's mark.
  start = performance.now();
  const whole = await readRuntimeTranscript(configDir, runtimeId, FOLDER);
  if (whole === null) throw new Error("no transcript");
  const oldPlan = planTranscriptWrite(stored.mark, whole);
  const oldMs = performance.now() - start;
  if (oldPlan.append !== added) throw new Error("the old plan did not append the turn");

  if (keep) {
    scenario.samples.old.push(oldMs);
    scenario.samples.read.push(readMs);
    scenario.samples.store.push(storeMs);
  }
}

const root = mkdtempSync(join(tmpdir(), "talkide-transcript-bench-"));
const database = await openDatabase({ databaseUrl: null, dataDir: join(root, "db") });
const rows: string[] = [];
try {
  const db = database.db;
  await migrateToLatest(db);
  await db
    .insertInto("projects")
    .values({ id: 1, name: "P", url: null, description: null, workspace_dir: join(root, "ws") })
    .execute();

  // The four conversations are set up first and measured in turn within each repetition, so
  // the machine's load (shared, and it varies) weighs on turn 5 and turn 500 alike.
  const scenarios: Scenario[] = [];
  for (const folders of [1, 200]) {
    for (const turn of [5, 500]) scenarios.push(await setUp(db, folders, turn));
  }
  for (let rep = 0; rep < WARMUP + REPETITIONS; rep += 1) {
    for (let i = 0; i < scenarios.length; i += 1) {
      const scenario = scenarios[(rep + i) % scenarios.length];
      if (scenario !== undefined) await measureTurn(db, scenario, rep >= WARMUP);
    }
  }
  for (const { folders, turn, bytes, samples } of scenarios) {
    const stat = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return [50, 90]
        .map((p) => percentile(sorted, p).toFixed(2))
        .concat((sorted.at(-1) ?? 0).toFixed(2));
    };
    const [oldP50, oldP90] = stat(samples.old);
    const [readP50, readP90, readMax] = stat(samples.read);
    const [storeP50, storeP90] = stat(samples.store);
    const [totalP50, totalP90] = stat(samples.read.map((r, i) => r + (samples.store[i] ?? 0)));
    rows.push(
      `| ${turn} | ${folders} | ${(bytes / 1e6).toFixed(1)} | ${oldP50} / ${oldP90} | ${readP50} / ${readP90} / ${readMax} | ${storeP50} / ${storeP90} | ${totalP50} / ${totalP90} |`,
    );
  }
} finally {
  await database.close();
  rmSync(root, { recursive: true, force: true });
}

const cpu = cpus()[0]?.model ?? "unknown CPU";
console.log(`## Transcript overhead per turn (turn 5 and turn 500)

Machine: ${cpu}, ${cpus().length} cores visible, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, ${platform()} ${release()}, Node ${process.version}; load average ${loadavg()
  .map((l) => l.toFixed(1))
  .join(
    " ",
  )}. ${REPETITIONS} measured repetitions per row after ${WARMUP} warm-up ones; each turn appends 4 lines with a ${TOOL_OUTPUT_BYTES / 1024} KiB tool output.

| turn | project folders | transcript (MB) | old: read whole + hash, p50 / p90 (ms) | new: read appended + plan, p50 / p90 / max (ms) | new: store on PGlite, p50 / p90 (ms) | new total, p50 / p90 (ms) |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}`);
