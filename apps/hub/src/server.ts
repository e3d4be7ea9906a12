import { randomBytes } from "node:crypto";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
} from "fastify";
import {
  ApiError,
  BODY_LIMIT_BYTES,
  createLogger,
  connectionTimeoutOptions,
  DEFAULT_CONNECTION_LIMITS,
  errorBody,
  limitConnectionsPerAddress,
  httpUrl,
  loadOrCreateAdminToken,
  mapFastifyError,
  openServiceDatabase,
  type DatabaseKind,
  type Logger,
  type MigrationFolder,
} from "@talkide/service-kit";
import {
  BodyFault,
  guardedRoutes,
  type GuardedRoute,
  UrlFault,
  urlFaultOf,
  useStrictJsonBodies,
  useStrictUrls,
} from "@talkide/strict-json";
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
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
  };
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
    const adminToken = await loadOrCreateAdminToken(
      config.dataDir,
      () => `tha_${randomBytes(32).toString("base64url")}`,
    );

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
    await app.listen({ host: config.host, port: config.port });
    cleanups.push(() => app.close());
    const address = app.server.address();
    const port = typeof address === "object" && address !== null ? address.port : config.port;
    const url = httpUrl(config.host, port);
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
        stopping ??= cleanup().then(() => {
          logger.info("stopped");
        });
        return stopping;
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

function buildApp(logger: Logger): FastifyInstance {
  const httpLogger: FastifyBaseLogger = logger.child({ component: "http" });
  const handleError = (
    error: FastifyError | ApiError | UrlFault,
    reply: FastifyReply,
  ): FastifyReply => {
    if (error instanceof ApiError)
      return reply.code(error.httpStatus).send(errorBody(error.code, error.message, error.path));
    if (error instanceof BodyFault || error instanceof UrlFault)
      return reply.code(error.statusCode).send(errorBody(error.code, error.message, error.path));
    const mapped = mapFastifyError(error);
    if (mapped !== null)
      return reply.code(mapped.httpStatus).send(errorBody(mapped.code, mapped.message));
    logger.error({ err: error }, "request failed");
    return reply.code(500).send(errorBody("internal_error", "The hub failed; see its log."));
  };
  const app = Fastify({
    loggerInstance: httpLogger,
    // Slow headers and bodies time out with 408 (service-kit's defaults).
    ...connectionTimeoutOptions(DEFAULT_CONNECTION_LIMITS),
    // As the daemon's; sending a message allows more (its attachments).
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: "x-request-id",
    // The router's own refusals (a percent-encoding that is not UTF-8, an overlong path
    // parameter) would otherwise answer in Fastify's shape, repeating the path.
    frameworkErrors: (error, _request, reply) => {
      void handleError(urlFaultOf(error), reply);
    },
  });
  // JSON only, UTF-8 only, and no string PostgreSQL cannot store: a 4xx with a stable code
  // before any route runs; path and query values by the same text rules.
  limitConnectionsPerAddress(app.server, DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress);
  app.removeContentTypeParser("text/plain");
  useStrictJsonBodies(app);
  app.setErrorHandler((error: FastifyError | ApiError | UrlFault, _request, reply) =>
    handleError(error, reply),
  );
  useStrictUrls(app);
  app.setNotFoundHandler((_request, reply) =>
    reply
      .code(404)
      .send(errorBody("not_found", "No such endpoint; see the hub's README for the API.")),
  );
  app.get("/hub/v1/health", () => ({ ok: true }));
  return app;
}
