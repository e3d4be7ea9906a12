import type { LimitScope, LimitSettings } from "./limits.ts";
import type { ProjectTotals } from "./store.ts";

/** One period's spend and tokens since its first instant (UTC), beside the caps that apply. */
export interface PeriodUsage {
  readonly since: string;
  readonly usd: number;
  readonly tokens: number;
  /** The operator's caps for this period and scope (null: none). */
  readonly limits: { readonly usd: number | null; readonly tokens: number | null };
}

/**
 * A project's or a user's totals (`projectTotals`, `userTotals`) as a service's usage route
 * answers them: today and this month, each with the caps of `scope` (`limits` of the gateway).
 */
export function usagePeriods(
  totals: ProjectTotals,
  limits: LimitSettings,
  scope: LimitScope,
): { readonly today: PeriodUsage; readonly month: PeriodUsage } {
  const cap = (period: "day" | "month", measure: "usd" | "tokens"): number | null =>
    limits.find((l) => l.scope === scope && l.period === period && l.measure === measure)?.cap ??
    null;
  const period = (which: "day" | "month"): PeriodUsage => ({
    since: totals[which].since,
    usd: totals[which].usd,
    tokens: totals[which].tokens,
    limits: { usd: cap(which, "usd"), tokens: cap(which, "tokens") },
  });
  return { today: period("day"), month: period("month") };
}
