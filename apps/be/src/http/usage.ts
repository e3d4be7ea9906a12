import type { ProjectUsage } from "@talkide/be-api";
import { usagePeriods } from "@talkide/gateway";
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
      project: usagePeriods(project, gateway.limits, "project"),
      you: usagePeriods(you, gateway.limits, "user"),
      demoModel: usage.demoModel,
    };
  });
}
