/**
 * Spend and token limits per project and per user, per UTC day and per UTC month. Each limit
 * is one operator setting (an environment variable) whose name a refusal quotes, so a member
 * knows which limit stopped them and that the service's operator can raise it.
 */

export type LimitScope = "project" | "user";
export type LimitPeriod = "day" | "month";
export type LimitMeasure = "usd" | "tokens";

export interface LimitSetting {
  readonly scope: LimitScope;
  readonly period: LimitPeriod;
  readonly measure: LimitMeasure;
  /** The environment variable that sets it. */
  readonly setting: string;
  /** The cap (USD, or tokens); null: no limit. */
  readonly cap: number | null;
}

/** Every limit, in the order they are checked (the first one reached is reported). */
export type LimitSettings = readonly LimitSetting[];

/** Default caps, in USD; token caps are off unless set. */
export const DEFAULT_CAPS = {
  user: { day: 20, month: 200 },
  project: { day: 50, month: 500 },
} as const;

/** The setting of a limit: `TALKIDE_LIMIT_<SCOPE>_<PERIOD>_<USD|TOKENS>`. */
export function limitSettingName(
  scope: LimitScope,
  period: LimitPeriod,
  measure: LimitMeasure,
): string {
  return `TALKIDE_LIMIT_${scope.toUpperCase()}_${period.toUpperCase()}_${measure.toUpperCase()}`;
}

const SCOPES: readonly LimitScope[] = ["user", "project"];
const PERIODS: readonly LimitPeriod[] = ["day", "month"];
const MEASURES: readonly LimitMeasure[] = ["usd", "tokens"];

/** The limits with their defaults, caps replaced where `caps` names a setting. */
export function limitSettings(caps: Readonly<Record<string, number | null>> = {}): LimitSettings {
  const settings: LimitSetting[] = [];
  for (const scope of SCOPES) {
    for (const period of PERIODS) {
      for (const measure of MEASURES) {
        const setting = limitSettingName(scope, period, measure);
        const fallback = measure === "usd" ? DEFAULT_CAPS[scope][period] : null;
        const cap = Object.hasOwn(caps, setting) ? (caps[setting] ?? null) : fallback;
        settings.push({ scope, period, measure, setting, cap });
      }
    }
  }
  return settings;
}

/** The default limits: per user $20 a day and $200 a month, per project $50 and $500. */
export const DEFAULT_LIMITS: LimitSettings = limitSettings();

/** A limit that is reached: what `checkLimits` returns and a refusal carries. */
export interface LimitReached {
  readonly scope: LimitScope;
  readonly period: LimitPeriod;
  readonly measure: LimitMeasure;
  /** What was used in the period so far (USD or tokens). */
  readonly used: number;
  readonly cap: number;
  /** The environment variable that sets this limit. */
  readonly setting: string;
  /** For people: which limit, what was used, and who can raise it. */
  readonly message: string;
}

/** The UTC day and month a moment falls in: each from its first instant to the next one's. */
export function periodsOf(now: number): {
  readonly day: { readonly from: Date; readonly to: Date };
  readonly month: { readonly from: Date; readonly to: Date };
} {
  const d = new Date(now);
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  return {
    day: { from: new Date(Date.UTC(y, m, day)), to: new Date(Date.UTC(y, m, day + 1)) },
    month: { from: new Date(Date.UTC(y, m, 1)), to: new Date(Date.UTC(y, m + 1, 1)) },
  };
}

/** What a scope used in each period, as the stored rows sum up. */
export interface UsedAmounts {
  readonly day: { readonly usd: number; readonly tokens: number };
  readonly month: { readonly usd: number; readonly tokens: number };
}

/** The first limit that `used` has reached (used ≥ cap), or null. */
export function reachedLimit(
  settings: LimitSettings,
  used: { readonly user: UsedAmounts | null; readonly project: UsedAmounts },
  /** What the host calls the gateway's project in a member's words ("project", "agent"). */
  projectNoun = "project",
): LimitReached | null {
  for (const limit of settings) {
    if (limit.cap === null) continue;
    const amounts = used[limit.scope];
    if (amounts === null) continue;
    const value = amounts[limit.period][limit.measure];
    if (value >= limit.cap) {
      return {
        ...limit,
        cap: limit.cap,
        used: value,
        message: limitMessage({ ...limit, cap: limit.cap }, value, projectNoun),
      };
    }
  }
  return null;
}

function amount(measure: LimitMeasure, value: number): string {
  // Cents, unless the amount is below one (a test's cap, or what a single request cost).
  return measure === "usd"
    ? `$${value === 0 || value >= 0.01 ? value.toFixed(2) : Number(value.toPrecision(2)).toString()}`
    : `${Math.round(value).toLocaleString("en-US")} tokens`;
}

function limitMessage(
  limit: LimitSetting & { readonly cap: number },
  used: number,
  projectNoun: string,
): string {
  const whose = limit.scope === "user" ? "Your" : `This ${projectNoun}'s`;
  const period = limit.period === "day" ? "daily" : "monthly";
  const what = limit.measure === "usd" ? "spending" : "token";
  const span = limit.period === "day" ? "today (UTC)" : "this month (UTC)";
  return `${whose} ${period} ${what} limit of ${amount(limit.measure, limit.cap)} is reached (${amount(limit.measure, used)} used ${span}). It resets at the start of the next ${limit.period === "day" ? "day" : "month"} (UTC); the service's operator can raise it with ${limit.setting}.`;
}
