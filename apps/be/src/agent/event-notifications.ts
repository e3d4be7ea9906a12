import type { QueueConnection } from "@talkide/work-queue";
import { type Kysely, type RawBuilder, sql } from "kysely";
import pg from "pg";
import type { Logger } from "pino";
import type { DatabaseSchema } from "../db/schema.ts";

/** The channel every stored turn event is announced on; the payload is the turn's id. */
const CHANNEL = "talkide_turn_events";

/** How long a lost LISTEN connection waits before it connects again. */
const RECONNECT_MS = 1000;

interface Follower {
  readonly onStored: () => void;
  readonly onEnd: () => void;
}

/**
 * Announces a stored event of `turnId` to every instance; inside a transaction it is sent at
 * commit, so a listener that reads the events then finds it.
 */
export async function announceTurnEvent(db: Kysely<DatabaseSchema>, turnId: string): Promise<void> {
  await sql`SELECT ${announcement(turnId)}`.execute(db);
}

/** The announcement as an expression, for a statement that stores events and announces them. */
export function announcement(turnId: string): RawBuilder<void> {
  return sql<void>`pg_notify(${CHANNEL}, ${turnId})`;
}

/**
 * This instance's ear on the database: PostgreSQL LISTEN on a server, PGlite's `listen` on
 * the embedded database (the same NOTIFY either way). A stream that follows a turn run by
 * another instance reads the stored events each time one is announced; a lost connection
 * reconnects and wakes every follower, which reads what it missed, so no event is skipped.
 */
export class TurnEventNotifications {
  private readonly followers = new Map<string, Set<Follower>>();
  private stop: (() => Promise<void>) | null = null;
  private closed = false;

  private readonly logger: Logger;

  private constructor(logger: Logger) {
    this.logger = logger;
  }

  static async listen(
    connection: QueueConnection,
    logger: Logger,
  ): Promise<TurnEventNotifications> {
    const notifications = new TurnEventNotifications(logger);
    if (connection.kind === "embedded") {
      const unlisten = await connection.pglite.listen(CHANNEL, (payload) => {
        notifications.dispatch(payload);
      });
      notifications.stop = unlisten;
    } else {
      await notifications.listenOnServer(connection.connectionString);
    }
    return notifications;
  }

  private async listenOnServer(connectionString: string): Promise<void> {
    const client = new pg.Client({ connectionString });
    client.on("notification", (message) => {
      if (message.channel === CHANNEL && message.payload !== undefined) {
        this.dispatch(message.payload);
      }
    });
    client.on("error", (error) => {
      this.logger.warn({ err: error }, "lost the LISTEN connection for turn events; reconnecting");
      void client.end().catch(() => undefined);
      this.reconnectLater(connectionString);
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.stop = () => client.end();
  }

  private reconnectLater(connectionString: string): void {
    if (this.closed) return;
    setTimeout(() => {
      if (this.closed) return;
      this.listenOnServer(connectionString).then(
        () => {
          // Events stored while no one listened: every follower reads again.
          for (const set of this.followers.values()) for (const f of set) f.onStored();
        },
        () => {
          this.reconnectLater(connectionString);
        },
      );
    }, RECONNECT_MS).unref();
  }

  private dispatch(turnId: string): void {
    for (const follower of this.followers.get(turnId) ?? []) follower.onStored();
  }

  /** Calls `onStored` for each announced event of the turn; `onEnd` when this instance stops. */
  follow(turnId: string, onStored: () => void, onEnd: () => void): () => void {
    const follower: Follower = { onStored, onEnd };
    let set = this.followers.get(turnId);
    if (set === undefined) {
      set = new Set();
      this.followers.set(turnId, set);
    }
    set.add(follower);
    return () => {
      set.delete(follower);
      if (set.size === 0) this.followers.delete(turnId);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.followers.values()) for (const f of set) f.onEnd();
    this.followers.clear();
    await this.stop?.();
  }
}
