import {
  billedInputTokens,
  estimateBlockTokens,
  idealBilledInputTokens,
  type PromptCacheLedgerEntry,
} from "./prompt-cache.ts";

/**
 * What a step of a benchmark scenario cost at the caching stand-in, beside the ideal: the
 * benchmarks of both apps (`pnpm bench`, `BENCHMARKS.md`) print their scenarios with this.
 *
 * Billed input, in tokens at the input price: uncached ×1 + cache write ×1.25 (5 m) or ×2
 * (1 h) + cache read ×0.1 (`billedInputTokens`). The ideal of a step's turn request writes
 * only what was genuinely new (`newTexts`: the new prompt and the previous answer, a changed
 * instruction file, or everything on the very first request) at the write price of its TTL
 * and reads the rest of the request at ×0.1. Any other request of the step (a retry after a
 * fallback) is held to the stand-in's prefix ideal (`idealBilledInputTokens`: nothing seen
 * before in any earlier request is written again).
 */
export interface CostStep {
  readonly label: string;
  /** Every answered model request of the step, in order (refused ones are not billed). */
  readonly entries: readonly PromptCacheLedgerEntry[];
  /** The request carrying the step's turn; null for a step whose turn never reached the model. */
  readonly main: PromptCacheLedgerEntry | null;
  /** The genuinely new text of the turn request, or `"all"` when all of it is new. */
  readonly newTexts: readonly string[] | "all";
  /**
   * Set when the CLI's own layout decides the step, and why: the CLI changed bytes that come
   * before anything the project sends (its tool list), so no client of this CLI could read the
   * earlier prefix. Such a step stays in the whole scenario and is also reported apart.
   */
  readonly layoutBound?: string;
}

export interface StepCost {
  readonly label: string;
  readonly requests: number;
  readonly uncached: number;
  readonly write: number;
  readonly read: number;
  readonly billed: number;
  readonly ideal: number;
  readonly layoutBound?: string;
}

const READ_FACTOR = 0.1;

function writeFactor(entry: PromptCacheLedgerEntry): number {
  // The ideal writes at the TTL the request asked for (the last breakpoint's).
  return entry.breakpoints.at(-1)?.ttl === "1h" ? 2 : 1.25;
}

/** The ideal billed input of the step's turn request (see `CostStep`). */
function idealOfMain(main: PromptCacheLedgerEntry, newTexts: CostStep["newTexts"]): number {
  const fresh =
    newTexts === "all"
      ? main.promptTokens
      : Math.min(
          main.promptTokens,
          newTexts.reduce((sum, text) => sum + estimateBlockTokens(text), 0),
        );
  return fresh * writeFactor(main) + (main.promptTokens - fresh) * READ_FACTOR;
}

export function stepCost(step: CostStep): StepCost {
  const sum = (pick: (e: PromptCacheLedgerEntry) => number): number =>
    step.entries.reduce((total, entry) => total + pick(entry), 0);
  const ideal = step.entries.reduce(
    (total, entry) =>
      total +
      (entry === step.main ? idealOfMain(entry, step.newTexts) : idealBilledInputTokens(entry)),
    0,
  );
  return {
    label: step.label,
    requests: step.entries.length,
    uncached: sum((e) => e.uncached),
    write: sum((e) => e.write5m + e.write1h),
    read: sum((e) => e.read),
    billed: sum((e) => billedInputTokens(e)),
    ideal,
    ...(step.layoutBound === undefined ? {} : { layoutBound: step.layoutBound }),
  };
}

const int = (value: number): string => Math.round(value).toLocaleString("en-US");
const ratio = (billed: number, ideal: number): string =>
  ideal === 0 ? (billed === 0 ? "–" : "∞") : `${(billed / ideal).toFixed(2)}×`;

/** The per-step table and its total, as Markdown lines. */
export function costTable(costs: readonly StepCost[]): string[] {
  const row = (label: string, c: Omit<StepCost, "label">): string =>
    `| ${label} | ${c.requests} | ${int(c.uncached)} | ${int(c.write)} | ${int(c.read)} | ${int(c.billed)} | ${int(c.ideal)} | ${ratio(c.billed, c.ideal)} |`;
  const decided = stepsTheProjectDecides(costs);
  return [
    "| step | requests | uncached | cache write | cache read | billed input | ideal | ratio |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...costs.map((c) => row(c.layoutBound === undefined ? c.label : `${c.label} ¹`, c)),
    row("**whole scenario**", sumOf(costs)),
    ...(decided.length === costs.length
      ? []
      : [row("**whole scenario without ¹**", sumOf(decided))]),
  ];
}

function sumOf(costs: readonly StepCost[]): Omit<StepCost, "label"> {
  const total = (pick: (c: StepCost) => number): number =>
    costs.reduce((sum, cost) => sum + pick(cost), 0);
  return {
    requests: total((c) => c.requests),
    uncached: total((c) => c.uncached),
    write: total((c) => c.write),
    read: total((c) => c.read),
    billed: total((c) => c.billed),
    ideal: total((c) => c.ideal),
  };
}

/** The steps whose bytes the project decides: every step not marked `layoutBound`. */
export function stepsTheProjectDecides(costs: readonly StepCost[]): StepCost[] {
  return costs.filter((c) => c.layoutBound === undefined);
}

/** The footnote (¹) naming why each layout-bound step is the CLI's, or no lines. */
export function layoutNotes(costs: readonly StepCost[]): string[] {
  return costs.flatMap((c) =>
    c.layoutBound === undefined ? [] : [`¹ ${c.label}: ${c.layoutBound}`],
  );
}

/** Billed over ideal for the whole scenario (or for the steps given). */
export function totalRatio(costs: readonly StepCost[]): number {
  const { billed, ideal } = sumOf(costs);
  return billed / ideal;
}

/** What others measured, from issue 28: each found by a user's bill, after a release. */
export const CACHE_ANCHORS: readonly string[] = [
  "| anchor | what was measured |",
  "| --- | --- |",
  "| OpenClaw PR #124191 | Claude CLI sessions driven by OpenClaw reused 28–60% of cache-accounted input; Claude Code used directly about 99.7% |",
  "| Claude Code #34629 | a `--print --resume` bot paid about 20× after a CLI update |",
  "| Claude Code #43657 | 5.9% cache hit rate after `--continue` |",
  "| Claude Code #93490 | a resume replays the session-start message without `cache_control` |",
  "| Claude Code #47261 | a prompt-cache TTL regression |",
  "| Claude Code #84253 | a prompt-cache TTL regression |",
];
