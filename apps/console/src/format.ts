import type { ProjectUsage, Turn } from "./api.ts";

export function formatBytes(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} B`;
}

/** A token count as people read it: "13,177". */
export function formatCount(tokens: number): string {
  return tokens.toLocaleString("en-US");
}

/**
 * An amount in USD as people read it: cents from $1 up ("$1.23", "$1,250.00"), below that up
 * to four decimals, at least two ("$0.0123", "$0.12"), so a cheap turn is not "$0.00"; an
 * amount under a hundredth of a cent is "less than $0.0001". The exact figure goes in a
 * tooltip (`formatExactUsd`).
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return "$0.00";
  if (usd >= 1) {
    return `$${usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  }
  if (usd < 0.00005) return "less than $0.0001";
  return `$${usd.toFixed(4).replace(/(\.\d\d\d??)0+$/, "$1")}`;
}

/** An amount exactly as the API gave it (the gateway's figures are exact to 1e-10 USD). */
export function formatExactUsd(usd: number): string {
  return `$${usd.toFixed(10).replace(/(\.\d\d\d*?)0+$/, "$1")}`;
}

/**
 * A turn's input tokens as the provider reported them, split by the prompt cache (the cache
 * writes by lifetime when the gateway recorded them), and the session's cache reuse so far:
 * `in 1,234 · cache write 3,456 (1 h) · cache read 12,345 · reuse 78%`; null when the turn
 * reported none (queued, running, or recorded before tokens were).
 */
export function formatTurnTokens(turn: Pick<Turn, "usage" | "sessionCacheReuse">): string | null {
  const { usage } = turn;
  if (usage === null) return null;
  const reuse =
    turn.sessionCacheReuse === null ? "" : ` · reuse ${Math.round(turn.sessionCacheReuse * 100)}%`;
  return `in ${formatCount(usage.inputTokens)} · cache write ${formatCount(usage.cacheCreationInputTokens)}${writeSplit(usage)} · cache read ${formatCount(usage.cacheReadInputTokens)}${reuse}`;
}

/**
 * The writes by lifetime: " (1 h)" when all were of one, " (1 h 3,456 · 5 min 16)" when both;
 * nothing for a turn recorded before the gateway (no split) or one that wrote nothing.
 */
function writeSplit(usage: NonNullable<Turn["usage"]>): string {
  const { cacheCreation5mInputTokens: fiveMin, cacheCreation1hInputTokens: oneHour } = usage;
  if (fiveMin === undefined || oneHour === undefined || usage.cacheCreationInputTokens === 0) {
    return "";
  }
  if (fiveMin === 0) return " (1 h)";
  if (oneHour === 0) return " (5 min)";
  return ` (1 h ${formatCount(oneHour)} · 5 min ${formatCount(fiveMin)})`;
}

/**
 * What a CLI fallback during the turn means for the session, in one line; null when there was
 * none. The session continues on purpose (a new one would pay a whole prefix write and meet
 * the same refusal), so the line says what it costs from now on.
 */
export function formatCliFallback(turn: {
  readonly cliFallback: "tool_search_off" | null;
}): string | null {
  if (turn.cliFallback === null) return null;
  return "The model gateway refused deferred tools, so Claude Code turned tool search off: every later turn of this conversation sends about 8,100 more input tokens.";
}

/** A moment of the API (ISO 8601) in the reader's own locale and time zone. */
export function formatWhen(iso: string): string {
  return new Date(iso).toLocaleString();
}

type Spend = ProjectUsage["project"];
type Period = Spend["today"];

/**
 * One line of what was spent (`GET /v1/projects/:id/usage`), for the project or for you over
 * all your projects: "This project: $1.23 today of $50.00 daily limit · $4.56 this month of
 * $500.00 monthly limit". A cap that is off is not mentioned; a reached one is said as such
 * ("$50.13 today, $50.00 daily limit reached"). Tokens appear only where a token cap
 * applies, since they mean nothing to most readers otherwise.
 */
export function formatSpend(label: string, spend: Spend): string {
  const parts = [
    usdOf(spend.today, "today", "daily"),
    usdOf(spend.month, "this month", "monthly"),
    ...tokensOf(spend.today, "today", "daily"),
    ...tokensOf(spend.month, "this month", "monthly"),
  ];
  return `${label}: ${parts.join(" · ")}`;
}

function usdOf(period: Period, when: string, cap: string): string {
  return capped(formatUsd(period.usd), when, period.usd, period.limits.usd, formatUsd, cap);
}

function tokensOf(period: Period, when: string, cap: string): string[] {
  const limit = period.limits.tokens;
  if (limit === null) return [];
  const count = (tokens: number): string => `${formatCount(tokens)} tokens`;
  return [capped(count(period.tokens), when, period.tokens, limit, count, cap)];
}

function capped(
  used: string,
  when: string,
  amount: number,
  limit: number | null,
  format: (value: number) => string,
  cap: string,
): string {
  if (limit === null) return `${used} ${when}`;
  // The gateway refuses from the cap on (used >= cap), so "reached" says what a member meets.
  if (amount >= limit) return `${used} ${when}, ${format(limit)} ${cap} limit reached`;
  return `${used} ${when} of ${format(limit)} ${cap} limit`;
}

/**
 * The exact figures behind a spend line, for its tooltip: "today since 2026-12-07 00:00 UTC:
 * exactly $1.2345678, 123,456 tokens; …".
 */
export function formatSpendExactly(spend: Spend): string {
  const period = (name: string, p: Period): string =>
    `${name} since ${p.since.slice(0, 16).replace("T", " ")} UTC: exactly ${formatExactUsd(p.usd)}, ${formatCount(p.tokens)} tokens`;
  return `${period("today", spend.today)}; ${period("this month", spend.month)}`;
}
