import { createHash } from "node:crypto";

/**
 * Anthropic's prompt cache as documented
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching), applied to the
 * requests the fake Messages API receives, so tests and benchmarks can see what a turn would
 * read from and write to the real provider's cache. Deterministic: tokens are estimated from
 * bytes and time comes from an injectable clock.
 */

/** The TTL of a cache entry: `cache_control: {type: "ephemeral"}` is 5 m, `ttl: "1h"` 1 h. */
export type CacheTtl = "5m" | "1h";

/** Where a block stands in the prompt; the cached prefix runs tools → system → messages. */
export type PromptSection = "tools" | "system" | "messages";

/** What happened at one `cache_control` breakpoint of a request. */
export interface CacheBreakpoint {
  /** Index of the marked block in the flattened prompt (tools, then system, then messages). */
  readonly block: number;
  readonly section: PromptSection;
  /** Tokens of the whole prompt up to and including the marked block. */
  readonly prefixTokens: number;
  readonly ttl: CacheTtl;
  /**
   * `read`: the request's cache read ends here; `covered`: an earlier position of a longer
   * read; `written`: a cache entry was created here; `below_minimum`: the prefix is shorter
   * than the model's minimum cacheable length, so nothing was written.
   */
  readonly outcome: "read" | "covered" | "written" | "below_minimum";
}

/** One answered message request, as the provider's cache accounted it. */
export interface PromptCacheLedgerEntry {
  /** `RecordedRequest.index` of the request. */
  readonly requestIndex: number;
  /** The clock's time of the request, in ms. */
  readonly at: number;
  readonly model: string;
  /** All input tokens of the request: `uncached + write5m + write1h + read`. */
  readonly promptTokens: number;
  /** Neither read from nor written to the cache (`usage.input_tokens`). */
  readonly uncached: number;
  /** Written with the 5-minute TTL (`cache_creation.ephemeral_5m_input_tokens`). */
  readonly write5m: number;
  /** Written with the 1-hour TTL (`cache_creation.ephemeral_1h_input_tokens`). */
  readonly write1h: number;
  /** Read from the cache (`usage.cache_read_input_tokens`). */
  readonly read: number;
  /**
   * The ideal: tokens after the longest block prefix that any earlier request of this cache
   * already sent (for the same model), whatever the TTL and the breakpoints. What a cache with
   * a breakpoint after every block and no expiry would still have to write.
   */
  readonly idealNew: number;
  readonly breakpoints: readonly CacheBreakpoint[];
}

/** The figures of a ledger entry that are billed. */
export interface CacheFigures {
  readonly uncached: number;
  readonly write5m: number;
  readonly write1h: number;
  readonly read: number;
}

/** A request the API refuses, in the API's error shape (`invalid_request_error`, 400). */
export class PromptCacheRequestError extends Error {
  override readonly name = "PromptCacheRequestError";
}

/** Most breakpoints the API accepts in one request. */
const MAX_CACHE_BREAKPOINTS = 4;
/** Block boundaries checked for a hit at and before each breakpoint. */
const CACHE_LOOKBACK_BLOCKS = 20;
/** Bytes per token of the estimate (the ratio issue 28 measured with). */
const BYTES_PER_TOKEN = 3.6;
const TTL_MS: Readonly<Record<CacheTtl, number>> = { "5m": 5 * 60_000, "1h": 60 * 60_000 };
/**
 * Bounds for a long-running stand-in (the backend's demo model serves every turn through one):
 * the ledger keeps the latest entries, the ideal remembers the latest prefixes.
 */
const LEDGER_LIMIT = 10_000;
const SEEN_LIMIT = 200_000;

/** Estimated tokens of one block's bytes: UTF-8 bytes / 3.6, rounded up. */
export function estimateBlockTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / BYTES_PER_TOKEN);
}

/**
 * The documented minimum cacheable prompt length of a model: 4096 tokens for Claude Opus
 * 4.5–4.7 and Haiku 4.5, 2048 for Haiku 3 and 3.5, 1024 for the other Sonnet and Opus models
 * (and for a model id this table does not know, such as the pinned CLI's default).
 */
export function minimumCacheableTokens(model: string): number {
  if (/claude-(opus-4-[567]|haiku-4-5)/.test(model)) return 4096;
  if (/claude-(3-5-haiku|3-haiku|haiku-3)/.test(model)) return 2048;
  return 1024;
}

/** Billed input in base-input-token units: uncached ×1, 5 m write ×1.25, 1 h write ×2, read ×0.1. */
export function billedInputTokens(figures: CacheFigures): number {
  return figures.uncached + 1.25 * figures.write5m + 2 * figures.write1h + 0.1 * figures.read;
}

/** The ideal billed input of a request: its new tokens written once (5 m), the rest read. */
export function idealBilledInputTokens(entry: PromptCacheLedgerEntry): number {
  return 1.25 * entry.idealNew + 0.1 * (entry.promptTokens - entry.idealNew);
}

interface FlatBlock {
  /** Position in the flattened prompt. */
  readonly index: number;
  readonly section: PromptSection;
  /** Tokens of the prompt up to and including this block. */
  readonly prefixTokens: number;
  /** sha256 of the model and every block's key bytes up to and including this one. */
  readonly prefixKey: string;
  readonly ttl: CacheTtl | null;
}

interface CacheEntry {
  readonly ttl: CacheTtl;
  expiresAt: number;
}

export interface PromptCacheOptions {
  /** Milliseconds; default `Date.now`. A benchmark passes its own to simulate pauses. */
  readonly clock?: () => number;
  /** Overrides `minimumCacheableTokens(model)` for every model. */
  readonly minimumCacheableTokens?: number;
}

/**
 * One provider-side cache shared by every request given to it (one per fake API instance).
 * Entries are keyed by the model and the exact bytes of the prompt up to a breakpoint.
 */
export class PromptCache {
  readonly #entries = new Map<string, CacheEntry>();
  /** Every prefix key any request has sent (the latest `SEEN_LIMIT`), for the ideal. */
  readonly #seen = new Set<string>();
  readonly #ledger: PromptCacheLedgerEntry[] = [];
  readonly #clock: () => number;
  readonly #minimum: number | undefined;

  constructor(options: PromptCacheOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#minimum = options.minimumCacheableTokens;
  }

  /** Every accounted request so far (the latest `LEDGER_LIMIT`), in order. */
  ledger(): readonly PromptCacheLedgerEntry[] {
    return [...this.#ledger];
  }

  /** Total input tokens of a request body, as the cache counts them. */
  countTokens(body: unknown): number {
    return flatten(body, "").at(-1)?.prefixTokens ?? 0;
  }

  /**
   * Accounts one message request: reads the longest cached prefix reachable from its
   * breakpoints, refreshes what it read, writes at the breakpoints beyond the read. Throws
   * `PromptCacheRequestError` (and changes nothing) for a request the API would refuse.
   */
  account(requestIndex: number, body: unknown): PromptCacheLedgerEntry {
    const model = readModel(body);
    const blocks = flatten(body, model);
    const marked = blocks.flatMap((block) =>
      block.ttl === null ? [] : [{ ...block, ttl: block.ttl }],
    );
    checkBreakpoints(marked);
    const now = this.#clock();
    const minimum = this.#minimum ?? minimumCacheableTokens(model);

    // Reads: at each breakpoint, the block boundaries back to the lookback limit.
    let readFrom: FlatBlock | undefined;
    for (const breakpoint of marked) {
      const window = blocks.slice(
        Math.max(0, breakpoint.index - CACHE_LOOKBACK_BLOCKS + 1),
        breakpoint.index + 1,
      );
      const hit = window.findLast(
        (block) => block.index > (readFrom?.index ?? -1) && this.#live(block.prefixKey, now),
      );
      if (hit !== undefined) readFrom = hit;
    }
    const readEnd = readFrom?.index ?? -1;
    const read = readFrom?.prefixTokens ?? 0;

    const breakpoints: CacheBreakpoint[] = [];
    let writtenUpTo = read;
    let write5m = 0;
    let write1h = 0;
    for (const { index, section, prefixTokens, ttl, prefixKey } of marked) {
      const base = { block: index, section, prefixTokens, ttl };
      if (index <= readEnd) {
        // A read refreshes the entry it came from and every entry of the prefix it covers.
        this.#refresh(prefixKey, now);
        breakpoints.push({ ...base, outcome: index === readEnd ? "read" : "covered" });
      } else if (prefixTokens < minimum) {
        breakpoints.push({ ...base, outcome: "below_minimum" });
      } else {
        const written = prefixTokens - writtenUpTo;
        if (ttl === "1h") write1h += written;
        else write5m += written;
        writtenUpTo = prefixTokens;
        this.#entries.set(prefixKey, { ttl, expiresAt: now + TTL_MS[ttl] });
        breakpoints.push({ ...base, outcome: "written" });
      }
    }
    if (readFrom !== undefined) this.#refresh(readFrom.prefixKey, now);

    const promptTokens = blocks.at(-1)?.prefixTokens ?? 0;
    const known = blocks.findLast((block) => this.#seen.has(block.prefixKey))?.prefixTokens ?? 0;
    this.#remember(blocks, now);

    const entry: PromptCacheLedgerEntry = {
      requestIndex,
      at: now,
      model,
      promptTokens,
      uncached: promptTokens - read - write5m - write1h,
      write5m,
      write1h,
      read,
      idealNew: promptTokens - known,
      breakpoints,
    };
    this.#ledger.push(entry);
    if (this.#ledger.length > LEDGER_LIMIT) this.#ledger.shift();
    return entry;
  }

  /** A live entry read again lives for its TTL from now. */
  #refresh(key: string, now: number): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.expiresAt > now) {
      entry.expiresAt = Math.max(entry.expiresAt, now + TTL_MS[entry.ttl]);
    }
  }

  /** Adds the request's prefixes to the ideal's memory and drops what a long run outgrew. */
  #remember(blocks: readonly FlatBlock[], now: number): void {
    for (const block of blocks) {
      // Re-inserted keys move to the end, so the oldest are dropped first.
      this.#seen.delete(block.prefixKey);
      this.#seen.add(block.prefixKey);
    }
    for (const key of this.#seen) {
      if (this.#seen.size <= SEEN_LIMIT) break;
      this.#seen.delete(key);
    }
    for (const [key, cached] of this.#entries) {
      if (cached.expiresAt <= now) this.#entries.delete(key);
    }
  }

  #live(key: string, now: number): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    if (entry.expiresAt > now) return true;
    this.#entries.delete(key);
    return false;
  }
}

function checkBreakpoints(marked: readonly { readonly ttl: CacheTtl }[]): void {
  if (marked.length > MAX_CACHE_BREAKPOINTS) {
    throw new PromptCacheRequestError(
      `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked.length}.`,
    );
  }
  // The API requires longer TTLs to come before shorter ones in the prompt.
  const firstShort = marked.findIndex((block) => block.ttl === "5m");
  if (firstShort >= 0 && marked.slice(firstShort).some((block) => block.ttl === "1h")) {
    throw new PromptCacheRequestError(
      'a ttl="1h" cache_control block must not come after a ttl="5m" cache_control block',
    );
  }
}

/**
 * The prompt as the cache sees it: each tool definition, each system block, each content
 * block of each message (a string `system` or `content` is one text block), in the order
 * tools → system → messages. A block's key bytes are its JSON without `cache_control`, with
 * its section and, for messages, the message's position and role.
 */
function flatten(body: unknown, model: string): FlatBlock[] {
  const record = isRecord(body) ? body : {};
  const raw: { section: PromptSection; tag: string; block: unknown }[] = [];
  for (const tool of asArray(record["tools"]))
    raw.push({ section: "tools", tag: "tool", block: tool });
  const system = record["system"];
  for (const block of typeof system === "string" ? [textBlock(system)] : asArray(system)) {
    raw.push({ section: "system", tag: "system", block });
  }
  asArray(record["messages"]).forEach((message, position) => {
    const role = isRecord(message) && typeof message["role"] === "string" ? message["role"] : "";
    const content = isRecord(message) ? message["content"] : undefined;
    const blocks = typeof content === "string" ? [textBlock(content)] : asArray(content);
    for (const block of blocks) {
      raw.push({ section: "messages", tag: `message ${position} ${role}`, block });
    }
  });

  const hash = createHash("sha256").update(model);
  let prefixTokens = 0;
  return raw.map(({ section, tag, block }, index) => {
    const stripped = withoutCacheControl(block);
    // Parsed JSON holds no `undefined`, so every block has a JSON text.
    const bytes = JSON.stringify(stripped);
    hash.update(`\n${tag}\n${bytes}`);
    prefixTokens += estimateBlockTokens(countedText(stripped, bytes));
    return {
      index,
      section,
      prefixTokens,
      prefixKey: hash.copy().digest("hex"),
      ttl: cacheTtl(block),
    };
  });
}

function countedText(block: unknown, json: string): string {
  if (isRecord(block) && block["type"] === "text" && typeof block["text"] === "string") {
    return block["text"];
  }
  return json;
}

function cacheTtl(block: unknown): CacheTtl | null {
  if (!isRecord(block) || !isRecord(block["cache_control"])) return null;
  return block["cache_control"]["ttl"] === "1h" ? "1h" : "5m";
}

function withoutCacheControl(block: unknown): unknown {
  if (!isRecord(block) || !("cache_control" in block)) return block;
  return Object.fromEntries(Object.entries(block).filter(([key]) => key !== "cache_control"));
}

function textBlock(text: string): { type: "text"; text: string } {
  return { type: "text", text };
}

function readModel(body: unknown): string {
  return isRecord(body) && typeof body["model"] === "string" ? body["model"] : "";
}

function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
