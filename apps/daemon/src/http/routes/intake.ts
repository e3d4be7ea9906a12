import type { FastifyInstance } from "fastify";
import type { DaemonDb } from "../../db/schema.ts";
import type { IntakeResult } from "../../intake/accept-delivery.ts";
import { requireScope } from "../auth.ts";
import { deliveryView } from "../views.ts";

/**
 * `POST /v1/agents/:agentId/deliveries`: the message service pushes one delivery (one
 * message for one agent). 202 once it is stored, 200 with `duplicate` when it was stored
 * before, 4xx with a stable code when it is refused (then nothing is stored).
 */
export function registerIntakeRoute(
  app: FastifyInstance,
  db: DaemonDb,
  accept: (agentId: string, body: unknown) => Promise<IntakeResult>,
): void {
  app.post<{ Params: { agentId: string } }>(
    "/v1/agents/:agentId/deliveries",
    { preHandler: requireScope(db, ["intake"]) },
    async (request, reply) => {
      const result = await accept(request.params.agentId, request.body);
      return reply
        .code(result.status === "accepted" ? 202 : 200)
        .send({ status: result.status, delivery: deliveryView(result.delivery) });
    },
  );
}
