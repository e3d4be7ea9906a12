import type { FastifyInstance } from "fastify";
import type { DaemonConfig } from "./config.ts";
import type { DaemonDb } from "./db/schema.ts";
import type { Logger, MigrationFolder } from "@talkide/service-kit";
import type { EventBus } from "./events/bus.ts";
import type { IntakeResult } from "./intake/accept-delivery.ts";

/**
 * How a feature plugs into the daemon without touching its core: its own tables (migration
 * folder), its own HTTP routes on the daemon's server, extra environment for agent turns,
 * and in-process access to delivery intake. The daemon's own `upstream` extension (turn
 * credentials for the message service) is one; embedders and tests pass their own to
 * `startDaemon`.
 */
export interface DaemonExtension {
  /** Short, unique; used in logs and as the migration namespace. */
  readonly name: string;
  /** Migrations of the extension's own tables, run on start after the daemon's own. */
  readonly migrations?: MigrationFolder;
  /** Called once, before the server listens. Routes registered here share the server. */
  register?(app: FastifyInstance, context: DaemonContext): Promise<void> | void;
  /**
   * Extra environment for the child process of one turn (for example, the credentials the
   * `ticlawk` command needs to reach this extension). Cannot override the daemon's own
   * `TICLAWK_*` turn variables or PATH.
   */
  childEnv?(
    turn: TurnEnvContext,
  ): Promise<Readonly<Record<string, string>>> | Readonly<Record<string, string>>;
  /**
   * Which of `childEnv`'s variables change with every turn (a turn's credential, say). A
   * conversation's kept ("warm") process keeps the values it started with; these reach the
   * agent's `ticlawk` through the turn's env file instead, and a change of them does not end
   * the process. Any other variable that changes makes the next turn start a new process.
   */
  readonly perTurnEnv?: readonly string[];
  /** Called after the server stopped and before the database closes. */
  close?(): Promise<void> | void;
}

export interface DaemonContext {
  readonly config: DaemonConfig;
  /** The daemon's database. Extensions keep their own tables (see `migrations`). */
  readonly db: DaemonDb;
  readonly logger: Logger;
  readonly events: EventBus;
  readonly hostId: string;
  /**
   * In-process intake: validates, stores and schedules one delivery, exactly as the HTTP
   * intake does (idempotent by agent and message id). Throws `IntakeError` for bad input.
   */
  acceptDelivery(agentId: string, delivery: unknown): Promise<IntakeResult>;
  /** The daemon's base URL once it listens (e.g. `http://127.0.0.1:7420`). */
  baseUrl(): string;
}

export interface TurnEnvContext {
  readonly agentId: string;
  readonly conversationId: string;
  readonly messageId: string;
  readonly sessionId: string;
  readonly turnId: string;
}
