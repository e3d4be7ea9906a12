import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { DaemonDb } from "../../db/schema.ts";
import { getDelivery, listDeliveries } from "../../store/deliveries.ts";
import { engineDb, listSessions } from "@talkide/turn-engine";
import { agentIdOf, agentOwner } from "../../sessions/agent-sessions.ts";
import { listAgents } from "../../store/agents.ts";
import { listTurns } from "../../store/turns.ts";
import { ApiError, parseInput } from "@talkide/service-kit";
import { PG_INTEGER_MAX, urlInteger } from "@talkide/strict-json";
import { requireScope } from "../auth.ts";
import { deliveryView, sessionView, turnView } from "../views.ts";

const limit = urlInteger({ min: 1, max: 1000 }).default(100);
const flag = z.enum(["true", "false"]).transform((v) => v === "true");
const id = z.string().min(1).max(200);

/** Lists of sessions, deliveries and turns: what the daemon did and is doing. */
export function registerReadRoutes(app: FastifyInstance, db: DaemonDb): void {
  const admin = { preHandler: requireScope(db, []) };

  app.get("/v1/sessions", admin, async (request) => {
    const q = parseInput(
      z.strictObject({
        agentId: id.optional(),
        conversationId: id.optional(),
        live: flag.optional(),
        limit,
      }),
      request.query,
      "invalid_query",
    );
    const rows = await listSessions(engineDb(db), {
      owner: q.agentId === undefined ? undefined : agentOwner(q.agentId),
      conversation: q.conversationId,
      openOnly: q.live,
      limit: q.limit,
    });
    // A session's runtime is its agent's.
    const runtimes = new Map((await listAgents(db)).map((agent) => [agent.id, agent.runtime]));
    return {
      sessions: rows.map((row) => sessionView(row, runtimes.get(agentIdOf(row)) ?? "")),
    };
  });

  app.get("/v1/deliveries", admin, async (request) => {
    const q = parseInput(
      z.strictObject({
        agentId: id.optional(),
        conversationId: id.optional(),
        state: z.enum(["accepted", "running", "completed", "failed"]).optional(),
        // Compared with deliveries.seq, a PostgreSQL integer.
        beforeSeq: urlInteger({ min: 1, max: PG_INTEGER_MAX }).optional(),
        limit,
      }),
      request.query,
      "invalid_query",
    );
    const rows = await listDeliveries(db, q);
    return { deliveries: rows.map((r) => deliveryView(r)) };
  });

  app.get("/v1/deliveries/:deliveryId", admin, async (request) => {
    const { deliveryId } = parseInput(
      z.object({ deliveryId: z.uuid() }),
      request.params,
      "invalid_params",
    );
    const q = parseInput(
      z.strictObject({ payload: flag.optional() }),
      request.query,
      "invalid_query",
    );
    const row = await getDelivery(db, deliveryId);
    if (row === undefined) throw new ApiError(404, "not_found", "No such delivery.");
    const turns = await listTurns(db, { deliveryId, limit: 1000 });
    return {
      delivery: deliveryView(row, { withPayload: q.payload === true }),
      turns: turns.map((t) => turnView(t)),
    };
  });

  app.get("/v1/turns", admin, async (request) => {
    const q = parseInput(
      z.strictObject({
        agentId: id.optional(),
        deliveryId: z.uuid().optional(),
        sessionId: z.uuid().optional(),
        events: flag.optional(),
        limit,
      }),
      request.query,
      "invalid_query",
    );
    const rows = await listTurns(db, { ...q, withEvents: q.events });
    return { turns: rows.map((t) => turnView(t, { withEvents: q.events === true })) };
  });
}
