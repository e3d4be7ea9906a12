import type { Delivery } from "@talkide/prompts";

/**
 * The fields of a validated delivery that the daemon keys on: the message (idempotency),
 * the conversation (one runtime session and one turn at a time per conversation), and the
 * routing reason (shown in the API; null when upstream gave none).
 */
export function deliveryIdentity(delivery: Delivery): {
  readonly messageId: string;
  readonly conversationId: string;
  readonly reason: string | null;
} {
  return {
    messageId: delivery.id,
    conversationId: delivery.conversation_id,
    reason: delivery.reason,
  };
}
