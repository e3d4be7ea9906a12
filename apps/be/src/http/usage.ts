import type { ProjectUsage } from "@talkide/be-api";
import type { LimitSettings, ProjectTotals } from "@talkide/gateway";
import type { FastifyInstance } from "fastify";
import { projectUsageKey, userUsageKey } from "../agent/usage-keys.ts";
import { currentUser, membershipOf, type AppDependencies } from "./context.ts";

/**
 * `GET /v1/projects/:id/usage` (any member): what the project, and the caller over all their
 * projects, spent today and this month (UTC), exact as the gateway recorded every request of
 * every instance, beside the caps the operator set.
 */
export function registerUsageRoute(app: FastifyInstance, deps: AppDependencies): void {
  const { usage } = deps;
  app.get("/v1/projects/:projectId/usage", async (request): Promise<ProjectUsage> => {
    const membership = await membershipOf(deps, request);
    const user = currentUser(request);
    const { gateway } = usage;
    const [project, you] = await Promise.all([
      gateway.projectTotals(projectUsageKey(membership.project)),
      gateway.userTotals(userUsageKey(user.id)),
    ]);
    return {
      project: periods(project, gateway.limits, "project"),
      you: periods(you, gateway.limits, "user"),
      demoModel: usage.demoModel,
    };
  });
}

function periods(
  totals: ProjectTotals,
  limits: LimitSettings,
  scope: "project" | "user",
): ProjectUsage["project"] {
  const cap = (period: "day" | "month", measure: "usd" | "tokens"): number | null =>
    limits.find((l) => l.scope === scope && l.period === period && l.measure === measure)?.cap ??
    null;
  return {
    today: {
      since: totals.day.since,
      usd: totals.day.usd,
      tokens: totals.day.tokens,
      limits: { usd: cap("day", "usd"), tokens: cap("day", "tokens") },
    },
    month: {
      since: totals.month.since,
      usd: totals.month.usd,
      tokens: totals.month.tokens,
      limits: { usd: cap("month", "usd"), tokens: cap("month", "tokens") },
    },
  };
}
