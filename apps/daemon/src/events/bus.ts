import { EventEmitter } from "node:events";
import type { EventNameOn } from "@talkide/be-api";

/**
 * What the daemon tells the outside about its work: server-sent events carry these, and the
 * structured log records the same facts. Ids, states and reason codes only, never a message
 * body, a prompt or a token. Their names are the one vocabulary of both apps (`EVENT_NAMES` of
 * `@talkide/be-api`, stream `daemon`; a type outside it does not compile).
 */
export type DaemonEvent = InTheVocabulary<
  | {
      readonly type: "delivery.accepted";
      readonly deliveryId: string;
      readonly agentId: string;
      readonly conversationId: string;
      readonly messageId: string;
    }
  | {
      readonly type: "turn.started";
      readonly turnId: string;
      readonly deliveryId: string;
      readonly agentId: string;
      readonly conversationId: string;
      readonly sessionId: string;
      readonly attempt: number;
      readonly resumed: boolean;
    }
  | {
      /** How the turn's Claude Code process started, before its message is sent. */
      readonly type: "turn.process";
      readonly turnId: string;
      readonly deliveryId: string;
      readonly agentId: string;
      readonly sessionId: string;
      /** `warm`: the conversation's kept process; `cold`: a new one. */
      readonly process: "warm" | "cold";
      /** Why a cold turn did not run warm (`new_session`, `context_changed`, …); null when warm. */
      readonly coldReason: string | null;
    }
  | {
      readonly type: "turn.succeeded";
      readonly turnId: string;
      readonly deliveryId: string;
      readonly agentId: string;
      readonly conversationId: string;
      readonly sessionId: string;
      readonly runtimeSessionId: string;
      readonly costUsd: number | null;
    }
  | {
      readonly type: "turn.failed";
      readonly turnId: string;
      readonly deliveryId: string;
      readonly agentId: string;
      readonly conversationId: string;
      readonly sessionId: string;
      readonly reason: string;
      /** Whether the delivery will be tried again (a fresh session after an unknown one). */
      readonly retrying: boolean;
    }
  | {
      readonly type: "delivery.completed";
      readonly deliveryId: string;
      readonly agentId: string;
    }
  | {
      readonly type: "delivery.failed";
      readonly deliveryId: string;
      readonly agentId: string;
      readonly reason: string;
    }
  | {
      /** Instruction files inside the agent's workspace (Claude Code loads them): reported. */
      readonly type: "workspace.instructions";
      readonly deliveryId: string;
      readonly agentId: string;
      readonly files: readonly string[];
    }
  | {
      readonly type: "delivery.requeued";
      readonly deliveryId: string;
      readonly agentId: string;
      readonly attempts: number;
    }
  | {
      /** The session was ended: the conversation's next turn starts a new one. */
      readonly type: "session.reset";
      readonly sessionId: string;
      readonly agentId: string;
      readonly conversationId: string;
      readonly reason: string;
    }
  | { readonly type: "agent.registered"; readonly agentId: string }
  | {
      readonly type: "agent.reset";
      readonly agentId: string;
      readonly invalidatedSessions: number;
    }
>;

type InTheVocabulary<E extends { readonly type: EventNameOn<"daemon"> }> = E;

export type DaemonEventType = DaemonEvent["type"];

/** An in-process publish/subscribe hub; listeners never throw into the publisher. */
export class EventBus {
  readonly #emitter = new EventEmitter();
  constructor() {
    // SSE clients each hold one listener; many open dashboards are normal, not a leak.
    this.#emitter.setMaxListeners(0);
  }

  publish(event: DaemonEvent): void {
    this.#emitter.emit("event", event);
  }

  /** Returns the function that unsubscribes. */
  subscribe(listener: (event: DaemonEvent) => void): () => void {
    const safe = (event: DaemonEvent) => {
      try {
        listener(event);
      } catch {
        // A broken subscriber must not break the turn that published.
      }
    };
    this.#emitter.on("event", safe);
    return () => this.#emitter.off("event", safe);
  }
}
