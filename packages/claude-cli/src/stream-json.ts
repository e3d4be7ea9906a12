import { roundUsd } from "./cost.ts";

/**
 * One event of Claude Code's `--output-format stream-json` output: a JSON object per line
 * with a `type` (`system`, `assistant`, `user`, `result`, …). Only the fields this package
 * relies on are named; everything else is kept as the CLI wrote it.
 */
export interface ClaudeStreamEvent {
  readonly type: string;
  readonly subtype?: string;
  readonly session_id?: string;
  readonly [field: string]: unknown;
}

/** The final `result` event, as far as a turn's outcome depends on it. */
export interface ClaudeResultEvent extends ClaudeStreamEvent {
  readonly type: "result";
  readonly is_error?: boolean;
  readonly result?: string;
  readonly total_cost_usd?: number;
  readonly usage?: unknown;
  readonly errors?: readonly string[];
}

/**
 * Splits a stream of text chunks into complete lines. Chunks may end anywhere (inside a
 * line, between `\r` and `\n`); a line is only released once its newline arrived, and
 * `end()` releases a final line that had none.
 */
export class LineSplitter {
  private pending = "";

  push(chunk: string): string[] {
    this.pending += chunk;
    const lines = this.pending.split("\n");
    this.pending = lines.pop() ?? "";
    return lines.map(stripCarriageReturn);
  }

  end(): string[] {
    const last = this.pending;
    this.pending = "";
    return last === "" ? [] : [stripCarriageReturn(last)];
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

export type ParsedLine =
  | { readonly kind: "blank" }
  | { readonly kind: "event"; readonly event: ClaudeStreamEvent }
  | { readonly kind: "invalid"; readonly line: string };

/** Classifies one output line: blank (ignored), an event object with a string `type`, or invalid. */
export function parseStreamLine(line: string): ParsedLine {
  if (line.trim() === "") return { kind: "blank" };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: "invalid", line };
  }
  if (
    typeof value !== "object" ||
    value === null ||
    Array.isArray(value) ||
    typeof (value as { type?: unknown }).type !== "string"
  ) {
    return { kind: "invalid", line };
  }
  return { kind: "event", event: value as ClaudeStreamEvent };
}

export function isInitEvent(event: ClaudeStreamEvent): boolean {
  return event.type === "system" && event.subtype === "init";
}

export function isResultEvent(event: ClaudeStreamEvent): event is ClaudeResultEvent {
  return event.type === "result";
}

/** A non-empty string session id carried by an event, if any. */
export function sessionIdOf(event: ClaudeStreamEvent): string | null {
  const id = event.session_id;
  return typeof id === "string" && id !== "" ? id : null;
}

/** The cumulative session cost a result event reports, when it is a usable number (rounded: `roundUsd`). */
export function totalCostOf(event: ClaudeResultEvent): number | null {
  const cost: unknown = event.total_cost_usd;
  return typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? roundUsd(cost) : null;
}

/**
 * The tokens of one turn's input and output as the CLI reports them in its result event's
 * `usage` (summed over the turn's requests to the model API): `inputTokens` were read
 * uncached, `cacheCreationInputTokens` written to the prompt cache, `cacheReadInputTokens`
 * read from it. The CLI prices the turn (`total_cost_usd`) from these.
 */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly cacheCreationInputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly outputTokens: number;
}

/**
 * The result event's token usage, or null when it reported none or one that is not four
 * counts (a missing cache field counts as 0: the API leaves them out when caching is off).
 */
export function tokenUsageOf(event: ClaudeResultEvent): TokenUsage | null {
  const usage = event.usage;
  if (typeof usage !== "object" || usage === null) return null;
  const field = (name: string, absent: number | null): number | null =>
    name in usage ? count((usage as Record<string, unknown>)[name]) : absent;
  const inputTokens = field("input_tokens", null);
  const outputTokens = field("output_tokens", null);
  const cacheCreationInputTokens = field("cache_creation_input_tokens", 0);
  const cacheReadInputTokens = field("cache_read_input_tokens", 0);
  if (
    inputTokens === null ||
    outputTokens === null ||
    cacheCreationInputTokens === null ||
    cacheReadInputTokens === null
  ) {
    return null;
  }
  return { inputTokens, cacheCreationInputTokens, cacheReadInputTokens, outputTokens };
}

/**
 * A failed call to the model API that Claude Code is about to retry. The CLI reports each
 * one as `{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,
 * "retry_delay_ms":601,"error_status":529,"error":"overloaded"}` (seen with 2.1.330 against
 * the fake Messages API answering 529 and 500; WIRE-NOTES.md) and otherwise stays silent for
 * minutes while it backs off.
 */
export interface ApiRetry {
  readonly attempt: number;
  readonly maxRetries: number | null;
  readonly delayMs: number | null;
  /** The HTTP status the API answered, when there was an answer. */
  readonly status: number | null;
  /** The CLI's short error kind (`overloaded`, `server_error`, …); never free text. */
  readonly error: string | null;
}

const count = (value: unknown): number | null =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;

export function apiRetryOf(event: ClaudeStreamEvent): ApiRetry | null {
  if (event.type !== "system" || event.subtype !== "api_retry") return null;
  const attempt = count(event["attempt"]);
  if (attempt === null) return null;
  const error = event["error"];
  return {
    attempt,
    maxRetries: count(event["max_retries"]),
    delayMs: count(event["retry_delay_ms"]),
    status: count(event["error_status"]),
    error: typeof error === "string" && /^[a-z][a-z0-9_]{0,63}$/.test(error) ? error : null,
  };
}
