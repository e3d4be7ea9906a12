#!/usr/bin/env node
/**
 * Benchmark of CLAUDE.md rendering (`pnpm --filter @talkide/renderer run bench`; add
 * `-- --write` to rewrite the measured section of BENCHMARKS.md).
 *
 * States of 1 and 10 members with 20-line briefings. Rows: our renderer (render only, and
 * parseRenderState + render from the decoded JSON object), Handlebars (compiled once) and
 * LiquidJS (parsed once) on an equivalent template, and hand-written concatenation, the
 * floor. Every engine's bytes are checked against ours before anything is timed.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Bench } from "tinybench";
import { parseRenderState } from "../parse.ts";
import { renderClaudeMd } from "../render.ts";
import type { RenderState } from "../state.ts";
import {
  createHandlebarsRenderer,
  createLiquidRenderer,
  renderByConcatenation,
} from "../test-support/equivalent-templates.ts";
import { teamOf } from "../test-support/fixtures.ts";

/** Calls per timed sample: one call of a few microseconds is too close to the timer's own cost. */
const BATCH = 32;
const ROUNDS = 7;
const BENCHMARKS_FILE = fileURLToPath(new URL("../../BENCHMARKS.md", import.meta.url));
/** The Kotlin renderer of runtimes/kotlin, built by `pnpm run conformance:jvm` or its build.sh. */
const JVM_JAR = fileURLToPath(
  new URL("../../../../runtimes/kotlin/build/libs/talkide-context-kotlin.jar", import.meta.url),
);

function inputOf(members: number): unknown {
  return {
    project: {
      id: 7,
      name: "Pekárna u Jelena",
      url: "https://pekarna.example/",
      description: "E-shop pro malou pekárnu: objednávky, rozvoz a věrnostní program.",
    },
    team: teamOf(members, 20),
    activeMemberId: "m1",
  };
}

function stateOf(input: unknown): RenderState {
  const result = parseRenderState(input);
  if (!result.ok)
    throw new Error(`benchmark state refused: ${result.error.code} at ${result.error.path}`);
  return result.state;
}

interface Row {
  readonly size: string;
  readonly name: string;
  readonly nsPerOp: number;
  readonly opsPerSecond: number;
  /** (slowest round − fastest round) ÷ median, in percent: how much the shared machine moved. */
  readonly spread: number;
}

let sink = 0;

async function measure(size: string, input: unknown): Promise<Row[]> {
  const state = stateOf(input);
  const handlebars = createHandlebarsRenderer();
  const liquid = createLiquidRenderer();
  const expected = renderClaudeMd(state);
  for (const [name, render] of [
    ["Handlebars", handlebars],
    ["LiquidJS", liquid],
    ["concatenation", renderByConcatenation],
  ] as const) {
    if (render(state) !== expected)
      throw new Error(`${name} does not give the renderer's bytes for ${size}`);
  }

  const tasks: ReadonlyArray<readonly [string, () => string]> = [
    ["renderClaudeMd (render only)", () => renderClaudeMd(state)],
    [
      "parseRenderState + renderClaudeMd",
      () => {
        const result = parseRenderState(input);
        return result.ok ? renderClaudeMd(result.state) : "";
      },
    ],
    ["Handlebars (compiled once)", () => handlebars(state)],
    ["LiquidJS (parsed once)", () => liquid(state)],
    ["hand-written concatenation (floor)", () => renderByConcatenation(state)],
  ];
  // The machine is shared: instead of one long run per task (where a burst of someone else's
  // work lands on one row), every task runs in each of several short rounds, and each row
  // reports the median over the rounds of the task's median sample.
  const perRound = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({
      time: 300,
      warmupTime: 100,
      subtractTimerOverhead: true,
      throws: true,
    });
    for (const [name, run] of tasks) {
      bench.add(name, () => {
        // Reading a character in the middle flattens the string: a consumer writing the file
        // pays for that, and a rope built by concatenation must not look cheaper than it is.
        for (let i = 0; i < BATCH; i++) {
          const text = run();
          sink += text.charCodeAt(text.length >> 1);
        }
      });
    }
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== "completed") throw new Error(`${task.name}: ${result.state}`);
      perRound.set(task.name, [
        ...(perRound.get(task.name) ?? []),
        (result.latency.p50 * 1e6) / BATCH,
      ]);
    }
  }
  return tasks.map(([name]) => {
    const samples = perRound.get(name) ?? [];
    const nsPerOp = median(samples);
    const spread = (100 * (Math.max(...samples) - Math.min(...samples))) / nsPerOp;
    return { size, name, nsPerOp, opsPerSecond: 1e9 / nsPerOp, spread };
  });
}

function median(values: ReadonlyArray<number>): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function machine(): string {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/mu.exec(cpuinfo)?.[1] ?? "unknown";
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");
  return [
    `- CPU: ${model}`,
    `- \`nproc\`: ${String(availableParallelism())}`,
    `- Node.js: ${process.version} (${process.platform}/${process.arch})`,
    `- load average at the end of the run (1, 5, 15 min): ${load}`,
  ].join("\n");
}

/** A Markdown table laid out the way Prettier formats one, so the written file stays formatted. */
function table(rows: ReadonlyArray<Row>): string {
  const header = [
    "state",
    "implementation",
    "ops/s",
    "ns/op",
    "spread",
    "vs floor",
    "Handlebars ÷ this",
  ];
  const body = rows.map((row) => {
    const floor = rows.find((r) => r.size === row.size && r.name.includes("floor"));
    const handlebars = rows.find((r) => r.size === row.size && r.name.startsWith("Handlebars"));
    return [
      row.size,
      row.name,
      Math.round(row.opsPerSecond).toLocaleString("en-US"),
      Math.round(row.nsPerOp).toLocaleString("en-US"),
      `${row.spread.toFixed(0)} %`,
      `${(row.nsPerOp / (floor?.nsPerOp ?? Number.NaN)).toFixed(2)}×`,
      `${((handlebars?.nsPerOp ?? Number.NaN) / row.nsPerOp).toFixed(2)}×`,
    ];
  });
  const widths = header.map((_title, column) =>
    Math.max(3, ...[header, ...body].map((cells) => (cells[column] ?? "").length)),
  );
  const rightAligned = (column: number): boolean => column >= 2;
  const line = (cells: ReadonlyArray<string>): string =>
    `| ${cells.map((cell, column) => (rightAligned(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join(" | ")} |`;
  const rule = `| ${widths.map((width, column) => (rightAligned(column) ? `${"-".repeat(width - 1)}:` : "-".repeat(width))).join(" | ")} |`;
  return [line(header), rule, ...body.map(line)].join("\n");
}

/**
 * The same states through the Kotlin renderer, timed inside its own JVM after a JIT warm-up:
 * rows beside the TypeScript ones, from one run. The rows give the timing thread's CPU time
 * per call, because on the shared machine a JVM thread waits for a core most of the wall
 * time (the wall-clock figures are printed too). Its bytes are checked against ours first.
 * Skipped, with a note, when the jar was not built.
 */
function measureJvm(states: ReadonlyArray<readonly [string, unknown]>): Row[] {
  if (!existsSync(JVM_JAR)) {
    console.warn(`no JVM rows: build ${JVM_JAR} first (sh runtimes/kotlin/build.sh)`);
    return [];
  }
  const dir = mkdtempSync(join(tmpdir(), "talkide-bench-"));
  try {
    const files = states.map(([size, input], index) => {
      const file = join(dir, `state-${String(index)}.json`);
      writeFileSync(file, JSON.stringify(input));
      return [file, size, renderClaudeMd(stateOf(input))] as const;
    });
    const child = spawnSync(
      "java",
      ["-XX:+UseSerialGC", "-jar", JVM_JAR, "bench", ...files.map(([file]) => file)],
      {
        encoding: "utf8",
      },
    );
    if (child.status !== 0) throw new Error(`the Kotlin benchmark failed:\n${child.stderr}`);
    return child.stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => {
        const result = JSON.parse(line) as {
          state: string;
          task: string;
          nsPerOp: number;
          spread: number;
          wallNsPerOp: number;
          sha256: string;
          java: string;
        };
        const [, size, expected] = files.find(([file]) => file === result.state) ?? [];
        if (size === undefined || expected === undefined)
          throw new Error(`unknown state ${result.state}`);
        if (result.sha256 !== createHash("sha256").update(expected).digest("hex"))
          throw new Error(`the Kotlin renderer does not give our bytes for ${size}`);
        const name =
          result.task === "render only"
            ? `Kotlin on Java ${result.java}: render only (CPU time)`
            : `Kotlin on Java ${result.java}: JSON text → bytes (CPU time)`;
        console.warn(
          `${size}, ${name}: ${result.nsPerOp.toFixed(0)} ns/op CPU, ${result.wallNsPerOp.toFixed(0)} ns/op wall clock`,
        );
        return {
          size,
          name,
          nsPerOp: result.nsPerOp,
          opsPerSecond: 1e9 / result.nsPerOp,
          spread: result.spread,
        };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const states = [
  ["1 member", inputOf(1)],
  ["10 members", inputOf(10)],
] as const;
const rows: Row[] = [];
for (const [size, input] of states) rows.push(...(await measure(size, input)));
const jvmRows = measureJvm(states);
const bySize = (size: string): Row[] => [
  ...rows.filter((row) => row.size === size),
  ...jvmRows.filter((row) => row.size === size),
];
const allRows = states.flatMap(([size]) => bySize(size));
const report = `${table(allRows)}\n\nMachine:\n\n${machine()}\n`;
process.stdout.write(`${report}\n(checksum ${String(sink % 997)})\n`);

if (process.argv.includes("--write")) {
  const current = readFileSync(BENCHMARKS_FILE, "utf8");
  const start = "<!-- bench:start -->\n";
  const end = "<!-- bench:end -->";
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  if (from === -1 || to === -1)
    throw new Error(`${BENCHMARKS_FILE} has no bench:start/bench:end markers`);
  writeFileSync(
    BENCHMARKS_FILE,
    // Blank lines around the report, as Prettier lays out Markdown: the file stays formatted.
    `${current.slice(0, from + start.length)}\n${report}\n${current.slice(to)}`,
  );
}
