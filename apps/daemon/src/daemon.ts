import { join } from "node:path";
import { mkdir, rm } from "node:fs/promises";
import {
  assertSandboxAvailable,
  definedEntries,
  startOrphanWatchdog,
  TURN_MARKER_VARIABLE,
} from "@talkide/claude-cli";
import { GATEWAY_MIGRATIONS, usagePeriods, type Gateway } from "@talkide/gateway";
import { STANDING_PROMPT, STANDING_PROMPT_VERSION } from "@talkide/prompts";
import { guardedRoutes, type GuardedRoute } from "@talkide/strict-json";
import {
  assertDirectoriesIsolated,
  ENGINE_MIGRATIONS,
  engineDb,
  pruneMovedWarmProcesses,
  sessionPoints,
} from "@talkide/turn-engine";
import type { DaemonConfig } from "./config.ts";
import {
  Cleanups,
  ConfigError,
  createLogger,
  generateToken,
  listen,
  loadOrCreateAdminToken,
  openServiceDatabase,
  type DatabaseKind,
  type Logger,
} from "@talkide/service-kit";
import { CORE_MIGRATIONS } from "./db/core-migrations.ts";
import type { DaemonDb, DaemonTables } from "./db/schema.ts";
import { EventBus } from "./events/bus.ts";
import type { DaemonContext, DaemonExtension } from "./extension.ts";
import { buildServer } from "./http/server.ts";
import { acceptDelivery, type IntakeResult } from "./intake/accept-delivery.ts";
import { daemonSandbox } from "./runtime/agent-sandbox.ts";
import { ClaudeCodeRuntime } from "./runtime/claude-code.ts";
import {
  agentProjectKey,
  modelProviderOf,
  PROVIDER_CREDENTIAL_VARIABLES,
  startModelGateway,
} from "./runtime/model-gateway.ts";
import {
  fetchUsesEnvProxy,
  ticlawkEntries,
  writeTiclawkWrapper,
} from "./runtime/ticlawk-wrapper.ts";
import type { StandingPrompt } from "./scheduler/execute-delivery.ts";
import { Scheduler } from "./scheduler/scheduler.ts";
import { listAgents } from "./store/agents.ts";
import { ensureAdminToken, TOKEN_PREFIX } from "./store/tokens.ts";
import { upstreamExtension } from "./upstream/upstream-extension.ts";

export interface StartDaemonOptions {
  readonly config: DaemonConfig;
  readonly logger?: Logger;
  readonly extensions?: readonly DaemonExtension[];
  /** The standing prompt of every turn; the prompts package's default when omitted. */
  readonly standingPrompt?: StandingPrompt;
  /** What each turn's child environment is built from; this process's environment by default. */
  readonly childBaseEnv?: Readonly<Record<string, string | undefined>>;
  /** Grace between SIGTERM and SIGKILL when a turn is stopped (default: the runtime's). */
  readonly killGraceMs?: number;
  /**
   * The claude-code runtime to use instead of one built from the configuration (embedders
   * and the benchmark wrap it to observe turns).
   */
  readonly runtime?: ClaudeCodeRuntime;
}

export interface RunningDaemon {
  /** `http://host:port` the daemon listens on. */
  readonly url: string;
  readonly config: DaemonConfig;
  readonly db: DaemonDb;
  readonly databaseKind: DatabaseKind;
  readonly events: EventBus;
  readonly hostId: string;
  /** The local admin token (also in `<dataDir>/admin-token`). */
  readonly adminToken: string;
  readonly ticlawkPath: string;
  /** Every route the HTTP API serves (the extensions' too), from its router. */
  readonly routes: readonly GuardedRoute[];
  /**
   * The model gateway's URL (loopback) every agent's Claude Code reaches the provider through;
   * null when the daemon has no provider credential (the CLI uses its own login).
   */
  readonly gatewayUrl: string | null;
  acceptDelivery(agentId: string, delivery: unknown): Promise<IntakeResult>;
  /** Stops claiming, aborts running turns (their deliveries go back in line), closes. */
  stop(): Promise<void>;
}

/**
 * Starts the daemon: locks the data directory, opens and migrates the database, recovers
 * what a previous run left running, then serves HTTP and runs turns.
 */
export async function startDaemon(options: StartDaemonOptions): Promise<RunningDaemon> {
  const { config } = options;
  const logger = options.logger ?? createLogger("talkide-daemon", config.logLevel);
  const extensions = [upstreamExtension(config.upstreamUrl), ...(options.extensions ?? [])];
  // The default standing prompt names no optional capability (contract 4.1): the local hub
  // (apps/hub) serves no reminders and no services, so its agents are never told to use them.
  const standingPrompt = options.standingPrompt ?? {
    text: STANDING_PROMPT,
    version: STANDING_PROMPT_VERSION,
  };
  const cleanups = new Cleanups((error) => {
    logger.error({ err: error }, "shutdown step failed");
  });

  try {
    // Every agent may run `ticlawk`, so every command runs in Claude Code's sandbox (issue 49):
    // where it cannot run, the daemon does not start, saying what to install.
    const parentEnv = options.childBaseEnv ?? process.env;
    await assertSandboxAvailable(
      "Every agent's rule Bash(ticlawk:*) (its only way to answer)",
      definedEntries(parentEnv),
      null,
    );
    if (config.upstreamUrl !== null && !fetchUsesEnvProxy()) {
      throw new ConfigError(
        [
          {
            variable: "TALKIDE_UPSTREAM_URL",
            message: `the agents' ticlawk reaches it only through the sandbox's proxy, which Node ${process.versions.node} does not use (NODE_USE_ENV_PROXY needs Node 24, or 22.21 and later); run the daemon with Node 24`,
          },
        ],
        "apps/daemon/README.md",
      );
    }
    // The provider's credential stays in this process (issue 51): refused here when it is one
    // the gateway cannot stand in for, before anything else starts.
    const provider = modelProviderOf(parentEnv);
    const database = await openServiceDatabase<DaemonTables>({
      owner: { service: "daemon", dataDirVariable: "TALKIDE_DAEMON_DATA_DIR" },
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      // The engine's tables first: the daemon's migration 0009 moves its sessions into them.
      migrations: [
        ENGINE_MIGRATIONS,
        CORE_MIGRATIONS,
        GATEWAY_MIGRATIONS,
        ...extensions.flatMap((e) => (e.migrations === undefined ? [] : [e.migrations])),
      ],
      logger,
    });
    cleanups.push(() => database.close());
    const { db } = database;

    // Contract section 6: no instruction source around any agent's workspace, in the CLI's
    // config dir or in the managed policy dir; otherwise the daemon does not start.
    await mkdir(config.claudeConfigDir, { recursive: true, mode: 0o700 });
    await assertDirectoriesIsolated(config.claudeConfigDir, [
      { dir: "/", isRoot: true, label: "The Claude Code config dir (TALKIDE_CLAUDE_CONFIG_DIR)" },
      ...(await listAgents(db)).map(({ workspace_dir: dir }) => ({
        dir,
        label: `The agent workspace ${dir}`,
      })),
    ]);

    // One gateway for this process: every Claude Code it starts reaches the provider through it
    // with a token of its own; the provider's credential is in no agent's environment or file.
    // Closed after the turns and their processes (cleanups run in reverse order).
    let gateway: Gateway | null = null;
    // The first sandboxed version kept the key in this file for the CLI's `apiKeyHelper`.
    await rm(join(config.dataDir, "provider-key"), { force: true });
    if (provider === null) {
      logger.warn(
        "no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN: the agents' Claude Code uses its own login (TALKIDE_CLAUDE_CONFIG_DIR), without the model gateway: no usage limits, and the CLI's own usage figures",
      );
    } else {
      const started = await startModelGateway({
        provider,
        db,
        settings: config.gateway,
        logger,
      });
      gateway = started;
      cleanups.push(() => started.close());
    }
    const adminToken = await loadOrCreateAdminToken(config.dataDir, () =>
      generateToken(TOKEN_PREFIX),
    );
    await ensureAdminToken(db, adminToken);
    const ticlawk = await writeTiclawkWrapper(config.dataDir, ticlawkEntries(config.ticlawkEntry));

    const events = new EventBus();
    events.subscribe((event) => {
      logger.info({ event }, event.type);
    });
    const runtime =
      options.runtime ??
      new ClaudeCodeRuntime({
        claudePath: config.claudePath,
        extraArgs: config.claudeExtraArgs,
        timeoutMs: config.turnTimeoutMs,
        killGraceMs: options.killGraceMs,
        warmProcesses: config.warmProcesses,
        warmIdleMs: config.warmIdleMs,
        onWarmEnded: (scope, reason) => {
          logger.info({ scope, reason }, "warm process ended");
        },
      });
    // Kept processes end after the turns (cleanups run in reverse order).
    cleanups.push(() => runtime.close());
    // Those whose session went on on another daemon are ended within seconds.
    const stopPruning = pruneMovedWarmProcesses(runtime.warm, {
      sessionPoints: (scopes) => sessionPoints(engineDb(db), scopes),
      log: logger,
    });
    cleanups.push(stopPruning);
    // What the turns' environment is built from: never the provider's credential (agent-env.ts
    // withholds it too); with the gateway, each process gets the gateway's URL and a token of
    // its own in place of `ANTHROPIC_BASE_URL`'s.
    const withheld = new Set([
      ...PROVIDER_CREDENTIAL_VARIABLES,
      ...(gateway === null ? [] : ["ANTHROPIC_BASE_URL"]),
    ]);
    const baseEnv = Object.fromEntries(
      Object.entries(parentEnv).filter(([name]) => !withheld.has(name)),
    );
    const claudeVersion = await runtime.version(definedEntries(baseEnv));
    if (claudeVersion === null) {
      logger.warn(
        { claudePath: config.claudePath },
        "claude --version failed; turns will fail with binary_missing until Claude Code is installed (TALKIDE_CLAUDE_PATH)",
      );
    }

    // Closed after the scheduler (cleanups run in reverse), when no turn of ours runs any more.
    const watchdog = startOrphanWatchdog(TURN_MARKER_VARIABLE);
    cleanups.push(() => watchdog.close());
    let baseUrl = "";
    // Every daemon on this database shares the queue; a starting one touches only work whose
    // lease expired (the queue's supervisor decides), never another daemon's live turn.
    const scheduler = await Scheduler.open(db, {
      connection:
        database.pglite === null
          ? { kind: "server", connectionString: config.databaseUrl ?? "" }
          : { kind: "embedded", pglite: database.pglite },
      concurrency: config.concurrency,
      leaseSeconds: config.leaseSeconds,
      turnTimeoutMs: config.turnTimeoutMs,
      maxAttempts: config.maxAttempts,
      instanceName: `talkide-daemon ${config.hostId}`,
    });
    cleanups.push(() => scheduler.stop());
    const turnContext = {
      db,
      events,
      logger,
      runtime,
      standingPrompt,
      hostId: config.hostId,
      ticlawkBinDir: ticlawk.binDir,
      claudeConfigDir: config.claudeConfigDir,
      promptCacheTtl: config.promptCacheTtl,
      baseEnv,
      gateway,
      extensions,
      daemonUrl: () => baseUrl,
      watchdog,
      turnEnvDir: join(config.dataDir, "turn-env"),
      quarantineDir: join(config.dataDir, "quarantine"),
      sandbox: daemonSandbox({
        dataDir: config.dataDir,
        claudeConfigDir: config.claudeConfigDir,
        denyRead: config.sandboxDenyRead,
        ticlawkBinDir: ticlawk.binDir,
        upstreamUrl: config.upstreamUrl,
      }),
    };
    const accept = (agentId: string, delivery: unknown) =>
      acceptDelivery({ events, store: (input) => scheduler.store(input) }, agentId, delivery);

    const closing = new AbortController();
    const app = buildServer({
      claudeConfigDir: config.claudeConfigDir,
      db,
      databaseKind: database.kind,
      events,
      logger,
      hostId: config.hostId,
      accept,
      retry: (deliveryId) => scheduler.retry(deliveryId),
      usage: async (agentId) =>
        gateway === null
          ? null
          : usagePeriods(
              await gateway.projectTotals(agentProjectKey(agentId)),
              gateway.limits,
              "project",
            ),
      closing: closing.signal,
      status: () => ({
        concurrency: scheduler.concurrency,
        runningTurns: scheduler.runningCount,
        claudePath: runtime.claudePath,
        claudeVersion,
        standingPromptVersion: standingPrompt.version,
      }),
    });
    const context: DaemonContext = {
      config,
      db,
      logger,
      events,
      hostId: config.hostId,
      acceptDelivery: accept,
      baseUrl: () => baseUrl,
    };
    for (const extension of extensions) {
      await extension.register?.(app, context);
      logger.info({ extension: extension.name }, "extension registered");
    }
    cleanups.push(async () => {
      for (const extension of extensions) await extension.close?.();
    });

    baseUrl = (await listen(app, config.host, config.port)).url;
    cleanups.push(async () => {
      closing.abort();
      await app.close();
    });

    await scheduler.start(turnContext);
    // Turns stop first on the way out (they may still need the extensions and the server).
    cleanups.push(() => scheduler.stop());
    logger.info(
      {
        url: baseUrl,
        database: database.kind,
        dataDir: config.dataDir,
        concurrency: config.concurrency,
        claudeVersion,
        hostId: config.hostId,
      },
      "listening",
    );

    let stopping: Promise<void> | null = null;
    return {
      url: baseUrl,
      config,
      db,
      databaseKind: database.kind,
      events,
      hostId: config.hostId,
      adminToken,
      ticlawkPath: ticlawk.path,
      routes: guardedRoutes(app),
      gatewayUrl: gateway?.url ?? null,
      acceptDelivery: accept,
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
