import type { FastifyInstance } from "fastify";
import {
  ApiError,
  Cleanups,
  createHttpApp,
  createLogger,
  generateToken,
  listen,
  loadOrCreateAdminToken,
  openServiceDatabase,
  sendErrorBody,
  type DatabaseKind,
  type Logger,
  type MigrationFolder,
} from "@talkide/service-kit";
import { guardedRoutes, type GuardedRoute } from "@talkide/strict-json";
import type { HubConfig } from "./config.ts";
import { DaemonClient } from "./daemon-client.ts";
import { Dispatcher } from "./dispatcher.ts";
import { registerAdminApi } from "./routes/admin-api.ts";
import { registerMemberApi } from "./routes/member-api.ts";
import type { HubDb, HubTables } from "./schema.ts";

export interface RunningHub {
  /** `http://host:port` the hub listens on. */
  readonly url: string;
  readonly config: HubConfig;
  readonly db: HubDb;
  readonly databaseKind: DatabaseKind;
  /** The hub's admin token (also in `<dataDir>/admin-token`). */
  readonly adminToken: string;
  /** Every route the HTTP API serves, from its router. */
  readonly routes: readonly GuardedRoute[];
  /** Hands what the outbox holds to the daemon now; resolves when done. */
  drain(): Promise<void>;
  /** Points the hub at a daemon started after it (URL and intake token), then drains. */
  connectDaemon(daemonUrl: string, intakeToken: string): Promise<void>;
  stop(): Promise<void>;
}

/** The hub's tables (its own migrations, under the "hub" namespace). */
export const HUB_MIGRATIONS: MigrationFolder = {
  namespace: "hub",
  folder: new URL("./migrations/", import.meta.url),
};

/**
 * Starts the hub: locks its data directory, opens and migrates its own database, serves the
 * member API (`ticlawk`) and the admin API (`talkide-hub`), and hands every routed message
 * to the daemon's HTTP intake, as any message service would.
 */
export async function startHub(options: {
  readonly config: HubConfig;
  readonly logger?: Logger;
}): Promise<RunningHub> {
  const { config } = options;
  const logger = options.logger ?? createLogger("talkide-hub", config.logLevel);
  const cleanups = new Cleanups((error) => {
    logger.error({ err: error }, "shutdown step failed");
  });
  try {
    const database = await openServiceDatabase<HubTables>({
      owner: { service: "hub", dataDirVariable: "TALKIDE_HUB_DATA_DIR" },
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      migrations: [HUB_MIGRATIONS],
      logger,
    });
    cleanups.push(() => database.close());
    const { db } = database;
    const adminToken = await loadOrCreateAdminToken(config.dataDir, () => generateToken("tha_"));

    const daemon = new DaemonClient(config.daemonUrl, config.intakeToken);
    const dispatcher = new Dispatcher({
      db,
      deliver: (agentId, delivery) => daemon.deliver(agentId, delivery),
      logger: logger.child({ component: "dispatcher" }),
    });
    cleanups.push(() => dispatcher.close());

    const app = buildApp(logger);
    registerMemberApi(app, db, dispatcher, daemon);
    registerAdminApi(app, db, { adminToken, daemon });
    const { url } = await listen(app, config.host, config.port);
    cleanups.push(() => app.close());
    // Deliveries a previous run stored but did not hand over yet (it stopped in between).
    await dispatcher.drain();
    logger.info(
      { url, database: database.kind, dataDir: config.dataDir, daemon: config.daemonUrl },
      "listening",
    );

    let stopping: Promise<void> | null = null;
    return {
      url,
      config,
      db,
      databaseKind: database.kind,
      adminToken,
      routes: guardedRoutes(app),
      drain: () => dispatcher.drain(),
      connectDaemon: (daemonUrl, intakeToken) => {
        daemon.connect(daemonUrl, intakeToken);
        return dispatcher.drain();
      },
      stop: () => {
        stopping ??= cleanups.close().then(() => {
          logger.info("stopped");
        });
        return stopping;
      },
    };
  } catch (error) {
    await cleanups.close();
    throw error;
  }
}

function buildApp(logger: Logger): FastifyInstance {
  const app = createHttpApp({
    logger: logger.child({ component: "http" }),
    send: sendErrorBody,
    internalErrorMessage: "The hub failed; see its log.",
    notFound: () =>
      new ApiError(404, "not_found", "No such endpoint; see the hub's README for the API."),
    // Request ids in logs tie a refusal to the caller's request without logging content.
    requestIdHeader: "x-request-id",
  });
  app.get("/hub/v1/health", () => ({ ok: true }));
  return app;
}
