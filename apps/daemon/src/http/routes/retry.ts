import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ApiError, parseInput } from "@talkide/service-kit";
import type { DaemonDb } from "../../db/schema.ts";
import type { EventBus } from "../../events/bus.ts";
import { getDelivery } from "../../store/deliveries.ts";
import { requireScope } from "../auth.ts";
import { deliveryView } from "../views.ts";

/**
 * `POST /v1/deliveries/:deliveryId/retry`: a failed delivery goes back in line, at the end of
 * its conversation's lane (a turn refused over a usage limit, once the limit allows; any other
 * failure too). Nothing of a delivery is lost when it fails: its document stays stored.
 */
export function registerRetryRoute(
  app: FastifyInstance,
  db: DaemonDb,
  events: EventBus,
  retry: (deliveryId: string) => Promise<boolean>,
): void {
  app.post(
    "/v1/deliveries/:deliveryId/retry",
    { preHandler: requireScope(db, []) },
    async (request) => {
      const { deliveryId } = parseInput(
        z.object({ deliveryId: z.uuid() }),
        request.params,
        "invalid_params",
      );
      const row = await getDelivery(db, deliveryId);
      if (row === undefined) throw new ApiError(404, "not_found", "No such delivery.");
      if (!(await retry(deliveryId))) {
        throw new ApiError(
          409,
          "not_failed",
          "Only a failed delivery can be retried; this one is waiting, running or completed.",
        );
      }
      events.publish({
        type: "delivery.requeued",
        deliveryId,
        agentId: row.agent_id,
        attempts: row.attempts,
      });
      const now = await getDelivery(db, deliveryId);
      return { status: "requeued", delivery: deliveryView(now ?? row) };
    },
  );
}
