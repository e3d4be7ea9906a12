// What the backend's turns cost at the provider's prompt cache: the real pinned `claude` CLI
// spawned by the service against the caching stand-in Messages API (issue 28, parts 3 and 6).
// Prints Markdown for BENCHMARKS.md. Token figures are deterministic; nothing here is timed.
//   pnpm --filter @talkide/be run bench   (or: node --conditions=@talkide/source src/bench/cache-cost.bench.ts)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CACHE_ANCHORS,
  costTable,
  layoutNotes,
  REAL_CLAUDE_VERSION,
  stepCost,
  stepsTheProjectDecides,
  totalRatio,
  type StepCost,
} from "@talkide/claude-cli/testing";
import {
  backendScenario,
  humanGapsMs,
  keepWarmCost,
  lifetimeRun,
  PING_HORIZON_MS,
  PING_INTERVAL_MS,
} from "./cache-cost-scenario.ts";

const MESSAGES = Number(process.env.BENCH_CACHE_MESSAGES ?? 16);
// BENCH_CACHE_ONLY=scenario or =lifetime runs one of the two parts.
const ONLY = process.env.BENCH_CACHE_ONLY;
const root = mkdtempSync(join(tmpdir(), "talkide-be-cache-bench-"));
const lines: string[] = [];
const say = (line = ""): void => {
  lines.push(line);
};
const progress = (text: string): void => {
  process.stderr.write(`cache-cost bench: ${text}\n`);
};
const int = (value: number): string => Math.round(value).toLocaleString("en-US");
const sum = (costs: readonly StepCost[], pick: (c: StepCost) => number): number =>
  costs.reduce((total, c) => total + pick(c), 0);

async function scenarioPart(): Promise<void> {
  const scenario = await backendScenario(root);
  const costs = scenario.steps.map(stepCost);
  progress("scenario done");
  say("## Prompt-cache cost per step: the backend scenario");
  say("");
  say(
    `claude ${REAL_CLAUDE_VERSION} (pinned), spawned by the service (a child process, as \`talkide-be serve\` runs), against the caching stand-in; ${new Date().toISOString().slice(0, 10)}. Billed input = uncached ×1 + cache write ×1.25 (5 m) or ×2 (1 h, the service's default) + cache read ×0.1, in tokens (UTF-8 bytes / 3.6 per block). Ideal = the turn request's genuinely new text (the prompt, the previous answer, a changed instruction file; everything on the very first request) written once, the rest read.`,
  );
  say("");
  for (const line of costTable(costs)) say(line);
  say("");
  say(`Whole scenario: billed input ${totalRatio(costs).toFixed(2)}× the ideal.`);
  say("");
  say("Why each step wrote what it wrote, as the LLM gateway read it and the turn record says it:");
  say("");
  say("| step | cache write | reason | phrase |");
  say("| --- | ---: | --- | --- |");
  for (const [i, cost] of costs.entries()) {
    const why = scenario.why[i] ?? null;
    say(`| ${cost.label} | ${int(cost.write)} | ${why?.reason ?? "–"} | ${why?.phrase ?? "–"} |`);
  }
  const decided = stepsTheProjectDecides(costs);
  if (decided.length !== costs.length) {
    say(
      `Without the steps the CLI's own layout decides (¹): ${totalRatio(decided).toFixed(2)}× the ideal.`,
    );
    for (const note of layoutNotes(costs)) say(`\n${note}`);
  }
  for (const note of scenario.notes) say(`\n${note}`);
  say("");
  for (const line of CACHE_ANCHORS) say(line);
}

/** Issue 28 part 6: one conversation, the same messages, under each TTL policy. */
async function lifetimePart(): Promise<void> {
  const gaps = humanGapsMs(MESSAGES - 1);
  const brisk = gaps.map(() => 20_000);
  const fiveMinutes = (await lifetimeRun(root, "5m", gaps)).steps.map(stepCost);
  progress("5 m run done");
  const oneHour = (
    await lifetimeRun(root, "1h", gaps, { ENABLE_PROMPT_CACHING_1H: "1" })
  ).steps.map(stepCost);
  progress("1 h run done");
  const mixed = (
    await lifetimeRun(root, "1h-5m", gaps, {
      ENABLE_PROMPT_CACHING_1H: "1",
      CLAUDE_CODE_MESSAGES_PROMPT_CACHE_TTL: "5m",
    })
  ).steps.map(stepCost);
  progress("1 h / 5 m run done");
  const neverRun = await lifetimeRun(root, "never", brisk);
  const never = neverRun.steps.map(stepCost);
  progress("reference run done");
  const keepWarm = keepWarmCost(neverRun.steps, [0, ...gaps]);

  const billed = {
    "5m": sum(fiveMinutes, (c) => c.billed),
    "1h": sum(oneHour, (c) => c.billed),
    mixed: sum(mixed, (c) => c.billed),
    keepWarm: sum(never, (c) => c.billed) + keepWarm.pingBilled,
    never: sum(never, (c) => c.billed),
  };
  const rewrites = (costs: readonly StepCost[]): number =>
    costs.slice(1).filter((c) => c.write > 1000).length;
  say("");
  say("## The cache's lifetime: a conversation with human gaps");
  say("");
  say(
    `${MESSAGES} messages of one member to one project, the gaps between them ${gaps.map((g) => (g / 60_000).toFixed(1)).join(", ")} min (uniform 1–15 min, seed 28), on the stand-in's clock.`,
  );
  say("");
  say("| policy | billed input | × never-expiring cache | turns that wrote > 1,000 tokens |");
  say("| --- | ---: | ---: | ---: |");
  const row = (policy: string, value: number, written: number | string): void => {
    say(`| ${policy} | ${int(value)} | ${(value / billed.never).toFixed(2)}× | ${written} |`);
  };
  row("5-minute TTL (the CLI's default; ours today)", billed["5m"], rewrites(fiveMinutes));
  row("1-hour TTL (`ENABLE_PROMPT_CACHING_1H=1`)", billed["1h"], rewrites(oneHour));
  row(
    "1 h for tools and system, 5 m for messages (`ENABLE_PROMPT_CACHING_1H=1`, `CLAUDE_CODE_MESSAGES_PROMPT_CACHE_TTL=5m`)",
    billed.mixed,
    rewrites(mixed),
  );
  row(
    `5-minute TTL + keep-warm ping every ${PING_INTERVAL_MS / 60_000} min, up to ${PING_HORIZON_MS / 60_000} min after the last answer (${keepWarm.pings} pings, ${int(keepWarm.pingBilled)} of it)`,
    billed.keepWarm,
    rewrites(never),
  );
  row(
    "reference: a cache that never expires (same messages, 20 s apart, 5 m prices)",
    billed.never,
    rewrites(never),
  );
  say("");
  say("| message | gap (min) | 5 m TTL | 1 h TTL | 1 h / 5 m | 5 m + keep-warm |");
  say("| ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const [i, gap] of [0, ...gaps].entries()) {
    say(
      `| ${i + 1} | ${(gap / 60_000).toFixed(1)} | ${int(fiveMinutes[i]?.billed ?? NaN)} | ${int(oneHour[i]?.billed ?? NaN)} | ${int(mixed[i]?.billed ?? NaN)} | ${int((never[i]?.billed ?? NaN) + (keepWarm.perStep[i] ?? 0))} |`,
    );
  }
}

try {
  if (ONLY !== "lifetime") await scenarioPart();
  if (ONLY !== "scenario") await lifetimePart();
} finally {
  rmSync(root, { recursive: true, force: true });
}
console.log(lines.join("\n"));
