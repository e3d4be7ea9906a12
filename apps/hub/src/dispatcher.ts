import type { Logger } from "@talkide/service-kit";
import { DaemonRefusal } from "./daemon-client.ts";
import { buildDeliveryDocument } from "./delivery.ts";
import { loadDetail } from "./details.ts";
import type { HubDb, RoutingReason } from "./schema.ts";

const BATCH = 100;

/**
 * Hands the outbox to the daemon's HTTP intake, oldest first, one drain at a time (so the
 * deliveries of a conversation are accepted in message order). A delivery the intake refuses
 * (4xx with a code) is marked failed with its code and never retried; an unreachable daemon
 * or a database failure stops the drain and leaves the rest pending for the next one (the
 * next message, `retryMs` later, or the next start). The intake is idempotent by agent and
 * message id, so handing one over twice is harmless.
 */
export class Dispatcher {
  readonly #db: HubDb;
  readonly #deliver: (agentId: string, delivery: unknown) => Promise<void>;
  readonly #logger: Logger;
  readonly #retryMs: number;
  #chain: Promise<void> = Promise.resolve();
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: {
    readonly db: HubDb;
    readonly deliver: (agentId: string, delivery: unknown) => Promise<void>;
    readonly logger: Logger;
    readonly retryMs?: number;
  }) {
    this.#db = options.db;
    this.#deliver = options.deliver;
    this.#logger = options.logger;
    this.#retryMs = options.retryMs ?? 2000;
  }

  /** Resolves when everything pending at the time of the call (and since) was handed over. */
  drain(): Promise<void> {
    this.#chain = this.#chain
      .then(() => this.#drainAll())
      .catch((error: unknown) => {
        this.#logger.error(
          { err: error },
          "hub: handing deliveries to the daemon failed; they stay pending",
        );
        this.#scheduleRetry();
      });
    return this.#chain;
  }

  /** No more retries; waits for a drain under way. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    await this.#chain;
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry !== null) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.drain();
    }, this.#retryMs);
    this.#retry.unref();
  }

  async #drainAll(): Promise<void> {
    for (;;) {
      const rows = await this.#db
        .selectFrom("hub_outbox")
        .innerJoin("hub_members", "hub_members.id", "hub_outbox.recipient_id")
        .select([
          "hub_outbox.id",
          "hub_outbox.message_id",
          "hub_outbox.reason",
          "hub_members.agent_id",
        ])
        .where("hub_outbox.state", "=", "pending")
        .orderBy("hub_outbox.id")
        .limit(BATCH)
        .execute();
      if (rows.length === 0) return;
      for (const row of rows) await this.#handOver(row);
    }
  }

  async #handOver(row: {
    readonly id: number;
    readonly message_id: string;
    readonly reason: RoutingReason;
    readonly agent_id: string | null;
  }): Promise<void> {
    let failure: string | null = null;
    if (row.agent_id === null) {
      failure = "not_an_agent: the recipient is not bound to a daemon agent";
    } else {
      try {
        const document = await this.#document(row.message_id, row.reason);
        await this.#deliver(row.agent_id, document);
      } catch (error) {
        if (!(error instanceof DaemonRefusal)) throw error;
        failure = `${error.code}: ${error.message}`;
        this.#logger.warn(
          { outboxId: row.id, code: error.code },
          "hub: the daemon refused a delivery",
        );
      }
    }
    await this.#db
      .updateTable("hub_outbox")
      .set({
        state: failure === null ? "accepted" : "failed",
        error: failure,
        processed_at: new Date(),
      })
      .where("id", "=", row.id)
      .execute();
  }

  async #document(messageId: string, reason: RoutingReason): Promise<Record<string, unknown>> {
    const message = await this.#db
      .selectFrom("hub_messages")
      .selectAll()
      .where("id", "=", messageId)
      .executeTakeFirstOrThrow();
    const conversation = await this.#db
      .selectFrom("hub_conversations")
      .selectAll()
      .where("id", "=", message.conversation_id)
      .executeTakeFirstOrThrow();
    const top =
      conversation.parent_id === null
        ? conversation
        : await this.#db
            .selectFrom("hub_conversations")
            .selectAll()
            .where("id", "=", conversation.parent_id)
            .executeTakeFirstOrThrow();
    const detail = await loadDetail(this.#db, message);
    return buildDeliveryDocument({ conversation, top, detail, reason });
  }
}
