import type { QueueConnection } from "@talkide/work-queue";
import { type Kysely, type RawBuilder, sql } from "kysely";
import pg from "pg";
import type { Logger } from "pino";
import type { DatabaseSchema } from "../db/schema.ts";

/** The channel every stored turn event is announced on; the payload is the turn's id. */
const CHANNEL = "talkide_turn_events";
/** A project's events (payload: its id), announced by the numbering trigger (migration 0015). */
const PROJECT_CHANNEL = "talkide_project_events";
/** A member asked a running turn to stop (payload: its id): the instance running it ends it. */
const STOP_CHANNEL = "talkide_turn_stop";
const CHANNELS = [CHANNEL, PROJECT_CHANNEL, STOP_CHANNEL] as const;
type Channel = (typeof CHANNELS)[number];

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

/** Tells every instance that a member asked the turn to stop (sent at commit). */
export async function announceStopRequest(
  db: Kysely<DatabaseSchema>,
  turnId: string,
): Promise<void> {
  await sql`SELECT pg_notify(${STOP_CHANNEL}, ${turnId})`.execute(db);
}

/**
 * This instance's ear on the database: PostgreSQL LISTEN on a server, PGlite's `listen` on
 * the embedded database (the same NOTIFY either way). A stream that follows a turn run by
 * another instance reads the stored events each time one is announced; a lost connection
 * reconnects and wakes every follower, which reads what it missed, so no event is skipped.
 */
export class TurnEventNotifications {
  /** Keyed by channel and payload (`talkide_turn_events:<turn id>`). */
  private readonly followers = new Map<string, Set<Follower>>();
  private readonly stopHandlers = new Set<(turnId: string) => void>();
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
      const unlisteners = await Promise.all(
        CHANNELS.map((channel) =>
          connection.pglite.listen(channel, (payload) => {
            notifications.dispatch(channel, payload);
          }),
        ),
      );
      notifications.stop = async () => {
        for (const unlisten of unlisteners) await unlisten();
      };
    } else {
      await notifications.listenOnServer(connection.connectionString);
    }
    return notifications;
  }

  private async listenOnServer(connectionString: string): Promise<void> {
    const client = new pg.Client({ connectionString });
    client.on("notification", (message) => {
      const channel = CHANNELS.find((c) => c === message.channel);
      if (channel !== undefined && message.payload !== undefined) {
        this.dispatch(channel, message.payload);
      }
    });
    client.on("error", (error) => {
      this.logger.warn({ err: error }, "lost the LISTEN connection for turn events; reconnecting");
      void client.end().catch(() => undefined);
      this.reconnectLater(connectionString);
    });
    await client.connect();
    for (const channel of CHANNELS) await client.query(`LISTEN ${channel}`);
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

  private dispatch(channel: Channel, payload: string): void {
    if (channel === STOP_CHANNEL) {
      for (const handler of this.stopHandlers) handler(payload);
      return;
    }
    for (const follower of this.followers.get(`${channel}:${payload}`) ?? []) follower.onStored();
  }

  /** Calls `onStored` for each announced event of the turn; `onEnd` when this instance stops. */
  follow(turnId: string, onStored: () => void, onEnd: () => void): () => void {
    return this.add(`${CHANNEL}:${turnId}`, { onStored, onEnd });
  }

  /** As `follow`, for every event of a project (its turns' and its roster's). */
  followProject(projectId: number, onStored: () => void, onEnd: () => void): () => void {
    return this.add(`${PROJECT_CHANNEL}:${projectId}`, { onStored, onEnd });
  }

  /** Calls `handler` with the id of every turn a member asks to stop, on any instance. */
  onStopRequest(handler: (turnId: string) => void): () => void {
    this.stopHandlers.add(handler);
    return () => this.stopHandlers.delete(handler);
  }

  private add(key: string, follower: Follower): () => void {
    let set = this.followers.get(key);
    if (set === undefined) {
      set = new Set();
      this.followers.set(key, set);
    }
    set.add(follower);
    return () => {
      set.delete(follower);
      if (set.size === 0) this.followers.delete(key);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.followers.values()) for (const f of set) f.onEnd();
    this.followers.clear();
    await this.stop?.();
  }
}
