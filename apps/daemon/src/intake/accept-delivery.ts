import { DeliveryError, parseDelivery } from "@talkide/prompts";
import { ApiError } from "@talkide/service-kit/errors";
import { BodyFault, checkStorableText } from "@talkide/strict-json";
import type { DeliveryRow } from "../db/schema.ts";
import type { EventBus } from "../events/bus.ts";
import { AGENT_ID_PATTERN } from "../store/agents.ts";
import type { insertDelivery, NewDelivery } from "../store/deliveries.ts";
import { deliveryIdentity } from "./delivery-identity.ts";

export interface IntakeResult {
  /** `duplicate`: this (agent, message) was accepted before; nothing new was stored. */
  readonly status: "accepted" | "duplicate";
  readonly delivery: DeliveryRow;
}

/** A delivery that was refused; nothing was stored. `code` is stable, `path` points into the input. */
export class IntakeError extends ApiError {
  declare readonly path: string;
  constructor(code: string, path: string, message: string, httpStatus: number) {
    super(httpStatus, code, message, { path });
    this.name = "IntakeError";
  }
}

export interface IntakeDeps {
  readonly events: EventBus;
  /** Stores the delivery and its job in the conversation's lane, together or not at all. */
  readonly store: (input: NewDelivery) => ReturnType<typeof insertDelivery>;
}

/**
 * Accepts one delivery (one message for one agent): validates it with the prompts
 * package's schema, checks the agent is registered, stores it durably, and only then
 * reports it accepted. The same (agent, message id) accepted again is a duplicate: the
 * stored delivery is returned and nothing changes.
 */
export async function acceptDelivery(
  deps: IntakeDeps,
  agentId: string,
  input: unknown,
): Promise<IntakeResult> {
  if (!AGENT_ID_PATTERN.test(agentId)) {
    throw new IntakeError(
      "invalid_agent_id",
      "agentId",
      "The agent id must be 1–64 letters, digits, '.', '_' or '-'.",
      400,
    );
  }
  let delivery;
  try {
    // The HTTP parser refuses such text already; callers inside the process (an extension) get
    // the same refusal instead of a database error that would quote the text.
    checkStorableText(input);
    delivery = parseDelivery(input);
  } catch (error) {
    if (error instanceof DeliveryError)
      throw new IntakeError(error.code, error.path, error.message, 400);
    if (error instanceof BodyFault)
      throw new IntakeError(error.code, error.path ?? "", error.message, error.statusCode);
    throw error;
  }
  const identity = deliveryIdentity(delivery);
  const stored = await deps.store({
    agentId,
    messageId: identity.messageId,
    conversationId: identity.conversationId,
    reason: identity.reason,
    payload: delivery,
  });
  if ("unknownAgent" in stored) {
    throw new IntakeError(
      "unknown_agent",
      "agentId",
      `No agent ${JSON.stringify(agentId)} is registered with this daemon; register it first (talkide-daemon agent register).`,
      404,
    );
  }
  const { duplicate, delivery: row } = stored;
  if (!duplicate) {
    deps.events.publish({
      type: "delivery.accepted",
      deliveryId: row.id,
      agentId,
      conversationId: row.conversation_id,
      messageId: row.message_id,
    });
  }
  return { status: duplicate ? "duplicate" : "accepted", delivery: row };
}
