import type { PortState } from "@talkide/be-api";
import { derivePorts, probePorts } from "@talkide/ports";
import type { FastifyInstance } from "fastify";
import { membershipOf, type AppDependencies } from "./context.ts";

/**
 * `GET /v1/projects/:id/ports`: the project's derived ports and whether each is in use now,
 * probed the same way a turn probes them before its spawn. Read-only: it reports, never frees.
 */
export function registerPortsRoute(app: FastifyInstance, deps: AppDependencies): void {
  app.get("/v1/projects/:projectId/ports", async (request) => {
    const membership = await membershipOf(deps, request);
    const ports = derivePorts(membership.project.id);
    const [be, fe] = await probePorts([ports.be, ports.fe]);
    const states = (
      [
        ["be", be],
        ["fe", fe],
      ] as const
    ).flatMap(([service, probe]): PortState[] =>
      probe === undefined
        ? []
        : [
            {
              service,
              port: probe.port,
              state: probe.state,
              holder: probe.state === "busy" ? probe.holder : null,
            },
          ],
    );
    return { ports: states };
  });
}
