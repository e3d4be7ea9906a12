import type { RequestUsage } from "./usage.ts";

/** A model's prices in USD per million tokens (web search: USD per search). */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Prompt-cache writes with the 5-minute lifetime. */
  readonly cacheWrite5m: number;
  /** Prompt-cache writes with the 1-hour lifetime. */
  readonly cacheWrite1h: number;
  readonly cacheRead: number;
  readonly webSearch?: number | undefined;
  /** Other prices above a prompt size (Haiku 5.5: above 100,000 prompt tokens). */
  readonly longPrompt?: Omit<ModelPrice, "longPrompt" | "webSearch"> & {
    readonly abovePromptTokens: number;
  };
}

export interface PriceTable {
  /** Where the figures come from and when they were read (shown in the README and logs). */
  readonly source: string;
  /** By model id; a dated or suffixed id (`claude-opus-4-5-20251101`) finds its base entry. */
  readonly models: Readonly<Record<string, ModelPrice>>;
  /** For a model the table does not know. */
  readonly fallback: ModelPrice;
}

// Source of every figure below: the model catalog baked into the pinned Claude Code CLI
// 2.1.330 (its `pricing_tiers` and each model's `pricing`, read from the native binary of
// @anthropic-ai/claude-code-linux-x64 2.1.330 on 2026-12-07: search it for
// `tier_2_10_cache_read_0_10`), which is also what the CLI computes its `total_cost_usd`
// from. Claude Opus 5.5 (the CLI's default model) checked against Anthropic's model page
// (platform.claude.com/docs/en/models/opus-5-5/overview, 2026-12-07): $4 input, $20 output,
// $5 5-minute cache write, $8 1-hour cache write, $0.20 cache read per million tokens.
const WEB_SEARCH = 0.01;
const tier = (
  input: number,
  output: number,
  cacheWrite5m: number,
  cacheWrite1h: number,
  cacheRead: number,
): ModelPrice => ({ input, output, cacheWrite5m, cacheWrite1h, cacheRead, webSearch: WEB_SEARCH });

const TIER_2_10 = tier(2, 10, 2.5, 4, 0.2);
const TIER_2_10_READ_0_10 = tier(2, 10, 2.5, 4, 0.1);
const TIER_3_15 = tier(3, 15, 3.75, 6, 0.3);
const TIER_5_25 = tier(5, 25, 6.25, 10, 0.5);
const TIER_15_75 = tier(15, 75, 18.75, 30, 1.5);
const TIER_10_50 = tier(10, 50, 12.5, 20, 1);
const TIER_10_50_READ_0_25 = tier(10, 50, 12.5, 20, 0.25);
const TIER_4_20_READ_0_20 = tier(4, 20, 5, 8, 0.2);
const TIER_8_40_READ_0_20 = tier(8, 40, 10, 16, 0.2);
const HAIKU_35 = tier(0.8, 4, 1, 1.6, 0.08);
const HAIKU_45 = tier(1, 5, 1.25, 2, 0.1);
const HAIKU_55: ModelPrice = {
  ...tier(0.1, 0.5, 0.125, 0.2, 0.01),
  longPrompt: {
    abovePromptTokens: 100_000,
    input: 0.5,
    output: 2.5,
    cacheWrite5m: 0.625,
    cacheWrite1h: 1,
    cacheRead: 0.05,
  },
};

/** The built-in table; an operator replaces or adds entries with `TALKIDE_MODEL_PRICES_FILE`. */
export const DEFAULT_PRICES: PriceTable = {
  source:
    "Claude Code 2.1.330's baked-in model catalog (read 2026-12-07); Opus 5.5 checked against platform.claude.com",
  models: {
    "claude-3-5-haiku": HAIKU_35,
    "claude-haiku-4-5": HAIKU_45,
    "claude-haiku-5-5": HAIKU_55,
    "claude-3-5-sonnet": TIER_3_15,
    "claude-3-7-sonnet": TIER_3_15,
    // `claude-sonnet-4-20250514` and `claude-opus-4-20250514` are the 4.0 models' ids.
    "claude-sonnet-4": TIER_3_15,
    "claude-sonnet-4-0": TIER_3_15,
    "claude-sonnet-4-5": TIER_3_15,
    "claude-sonnet-4-6": TIER_3_15,
    "claude-sonnet-5": TIER_2_10,
    "claude-sonnet-5-5": TIER_2_10_READ_0_10,
    "claude-opus-4": TIER_15_75,
    "claude-opus-4-0": TIER_15_75,
    "claude-opus-4-1": TIER_15_75,
    "claude-opus-4-5": TIER_5_25,
    "claude-opus-4-6": TIER_5_25,
    "claude-opus-4-7": TIER_5_25,
    "claude-opus-4-8": TIER_5_25,
    "claude-opus-5": TIER_5_25,
    "claude-opus-5-5": TIER_4_20_READ_0_20,
    "claude-fable-5": TIER_10_50,
    "claude-fable-5-1": TIER_10_50_READ_0_25,
    "claude-fable-5-2": TIER_8_40_READ_0_20,
    "claude-mythos-5": TIER_10_50,
    "claude-mythos-5-1": TIER_10_50_READ_0_25,
    "claude-mythos-5-2": TIER_8_40_READ_0_20,
  },
  // The CLI's own price for a model its catalog lacks ($5 / $25).
  fallback: TIER_5_25,
};

/**
 * The table's entry for a model id: the exact id, else the longest entry the id extends at a
 * `-` (`claude-opus-4-5-20251101` → `claude-opus-4-5`, never `claude-opus-4`), after dropping a
 * context suffix such as `[1m]`; null when none fits.
 */
export function priceEntryOf(table: PriceTable, model: string): string | null {
  const id = model.toLowerCase().replace(/\[[^\]]*\]$/, "");
  if (Object.hasOwn(table.models, id)) return id;
  let best: string | null = null;
  for (const key of Object.keys(table.models)) {
    if (id.startsWith(`${key}-`) && (best === null || key.length > best.length)) best = key;
  }
  return best;
}

/** The price of a model: its entry, or the table's fallback. */
export function priceOf(table: PriceTable, model: string | null): ModelPrice {
  const entry = model === null ? null : priceEntryOf(table, model);
  return entry === null ? table.fallback : (table.models[entry] ?? table.fallback);
}

/** Requests the provider served in the US only cost 1.1× (as Claude Code computes it). */
const US_INFERENCE_MULTIPLIER = 1.1;

/**
 * A request's cost in USD, computed as Claude Code 2.1.330 computes its `total_cost_usd` (the
 * same terms in the same order, so a single request's figure is the same double): uncached
 * input, output, cache reads, then the cache write (1-hour part at the 1-hour price, the rest
 * at the 5-minute price), times 1.1 for US-only inference, plus web searches.
 */
export function requestCostUsd(price: ModelPrice, usage: RequestUsage): number {
  const prompt =
    usage.inputTokens + usage.cacheReadTokens + usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  const p =
    price.longPrompt !== undefined && prompt > price.longPrompt.abovePromptTokens
      ? price.longPrompt
      : price;
  const cacheWrite = usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  const writeCost =
    usage.cacheWrite1hTokens <= 0
      ? (cacheWrite / 1e6) * p.cacheWrite5m
      : (usage.cacheWrite1hTokens / 1e6) * p.cacheWrite1h +
        ((cacheWrite - usage.cacheWrite1hTokens) / 1e6) * p.cacheWrite5m;
  const tokens =
    (usage.inputTokens / 1e6) * p.input +
    (usage.outputTokens / 1e6) * p.output +
    (usage.cacheReadTokens / 1e6) * p.cacheRead +
    writeCost;
  const geo = usage.inferenceGeo === "us" ? US_INFERENCE_MULTIPLIER : 1;
  return tokens * geo + usage.webSearchRequests * (price.webSearch ?? WEB_SEARCH);
}

/**
 * An amount to 1e-10 USD, the precision amounts are stored with (`numeric(20,10)`): floating
 * point noise of the sum does not leak into stored figures.
 */
export function roundUsd(amount: number): number {
  return Math.round(amount * 1e10) / 1e10;
}
