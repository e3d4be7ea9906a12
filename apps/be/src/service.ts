import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { MARA_AGENT_NAME, maraPluginDigest, writeMaraPlugin } from "@talkide/prompts";
import type { FakeMessagesApi } from "@talkide/claude-cli/testing";
import { startGateway, type Gateway, type ProviderCredential } from "@talkide/gateway";
import { assertDirectoriesIsolated, engineDb, processMarkersOf } from "@talkide/turn-engine";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { nameCacheMiss } from "./agent/cache-miss-names.ts";
import { upstreamProxy } from "./agent/upstream-proxy.ts";
import { announceServiceUrl, loadAdminToken } from "./auth/local-admin.ts";
import {
  findBundledClaudePath,
  launchEnv,
  killLeftoverProcesses,
  WarmProcessPool,
  assertSandboxAvailable,
  runsCode,
  startOrphanWatchdog,
  TURN_MARKER_VARIABLE,
  TURN_MARKER_VARIABLES,
} from "@talkide/claude-cli";
import { TurnEventNotifications } from "./agent/event-notifications.ts";
import { failTurnsWithoutJob, openTurnQueue, ownerTurnLimit } from "./agent/turn-queue.ts";
import { TurnRunner } from "./agent/turn-runner.ts";
import type { Config } from "./config.ts";
import { ACTIVE_WRITER_PATH, PROJECT_YML_PATH } from "./context/prepare.ts";
import { removeStaleTemporaryFiles, type WriteHooks } from "./context/write-if-changed.ts";
import { openDatabase, type Database } from "./db/connect.ts";
import { migrateToLatest } from "./db/migrate.ts";
import { demoUserSignIn, seedDemo, startBanner, type DemoSeed } from "./demo.ts";
import { isLoopbackHost, openableUrl } from "./public-url.ts";
import { buildApp } from "./http/app.ts";
import { builtConsoleDir } from "./http/console.ts";
import { Cleanups, createLogger, listen, makeDataDirPrivate } from "@talkide/service-kit";
import { trimWhiteSpace } from "@talkide/text";

export interface ServiceOptions {
  readonly config: Config;
  readonly logger?: Logger;
  /** Where human-facing banners go (the demo token, the demo-model warning). */
  readonly print?: (text: string) => void;
  /** Environment variables added to every spawn (tests steer the fake `claude` with these). */
  readonly claudeEnvOverrides?: Readonly<Record<string, string>>;
  readonly writeHooks?: WriteHooks;
  readonly killGraceMs?: number;
  /** The built web console; default: apps/console's dist when it has been built. */
  readonly consoleDir?: string | null;
  /** The environment the spawn passthrough reads from; default process.env. */
  readonly parentEnv?: NodeJS.ProcessEnv;
  /** The LLM gateway's clock (ms since the epoch); tests cross a cache lifetime without waiting. */
  readonly gatewayClock?: () => number;
}

export interface RunningService {
  readonly url: string;
  readonly port: number;
  readonly database: Database;
  readonly app: FastifyInstance;
  readonly runner: TurnRunner;
  /** The projects' kept-alive Claude Code processes (issue 15). */
  readonly warm: WarmProcessPool;
  /** Set on the first start of an empty database when the demo is enabled. */
  readonly demo: DemoSeed | null;
  /** The local fake Messages API, when no ANTHROPIC_API_KEY is configured. */
  readonly demoModel: FakeMessagesApi | null;
  /** The LLM gateway between every spawned `claude` and the provider (or the demo model). */
  readonly gateway: Gateway;
  readonly claudePath: string;
  close(): Promise<void>;
}

/** A command name no PATH holds: turns then fail with claude_binary_missing, saying what to do. */
const MISSING_CLAUDE = "claude-not-installed--set-TALKIDE_CLAUDE_PATH";

/**
 * The provider's address and credentials are the gateway's alone: never handed to the CLI,
 * even when an operator lists them in the passthrough (the gateway takes
 * `ANTHROPIC_AUTH_TOKEN` from there instead).
 */
const PROVIDER_VARIABLES = [/^(ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN|ANTHROPIC_BASE_URL)$/];

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config } = options;
  const logger = options.logger ?? createLogger("talkide-be", config.logLevel);
  const print = options.print ?? ((text: string) => process.stdout.write(text));

  // Before anything is written: umask 077, the data directory 0700, its files 0600.
  await makeDataDirPrivate(config.dataDir);
  // A rule that lets the agent run commands needs the sandbox they run in: refused here, with
  // what to install, rather than at the first turn (issue 49).
  const runsCommands = config.claudeAllowedTools.some(runsCode);
  if (runsCommands) {
    await assertSandboxAvailable("TALKIDE_CLAUDE_ALLOWED_TOOLS", options.parentEnv ?? process.env);
  }
  await mkdir(config.workspacesDir, { recursive: true });
  await mkdir(config.claudeConfigDir, { recursive: true });
  const claudeTmpDir = join(config.dataDir, "claude-tmp");
  await mkdir(claudeTmpDir, { recursive: true });
  // Before anything else starts: no instruction source around the workspaces (contract 6).
  await assertDirectoriesIsolated(config.claudeConfigDir, [
    {
      dir: config.workspacesDir,
      isRoot: true,
      label: `The workspaces directory ${config.workspacesDir} (TALKIDE_WORKSPACES_DIR)`,
    },
  ]);

  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onConnectionError: (error) => {
      logger.warn({ err: error }, "a database connection failed; it will be replaced");
    },
  });
  const cleanups = new Cleanups((error) => {
    logger.error({ err: error }, "shutdown step failed");
  });
  cleanups.push(() => database.close());

  try {
    const ran = await migrateToLatest(database.db);
    logger.info({ database: database.kind, migrations: ran }, "database ready");
    // The embedded database writes some files with modes of its own at start (its relation
    // cache): taken back to 0600 once it is up.
    await makeDataDirPrivate(config.dataDir);
    // Turns run from a queue on the database: FIFO per project across every instance.
    const queue = await openTurnQueue({
      db: database.db,
      connection: database.queueConnection,
      leaseSeconds: config.instanceLeaseSeconds,
      turnTimeoutMs: config.turnTimeoutMs,
      ...(config.ownerTurnShare >= 100
        ? {}
        : { turnsPerOwner: ownerTurnLimit(config.ownerTurnShare) }),
    });
    cleanups.push(() => queue.close());
    const notifications = await TurnEventNotifications.listen(database.queueConnection, logger);
    cleanups.push(() => notifications.close());
    // Closed after the runner (cleanups run in reverse), when no turn of ours runs any more.
    const watchdog = startOrphanWatchdog(TURN_MARKER_VARIABLE);
    cleanups.push(() => watchdog.close());
    // The embedded database admits one process, so its running turns belong to a process that
    // is gone: they are failed (and their processes ended) before the first turn, without
    // waiting out the lease. On a server, only leases decide: live instances own their work.
    // (The queue's rule, the daemon's too.) Here before the check for turns without a job; the
    // runner's worker loop asks again at its start and finds none.
    await queue.reclaimAtStart();
    const withoutJob = await failTurnsWithoutJob(database.db, queue);
    if (withoutJob.length > 0) {
      const leftovers = await killLeftoverProcesses(
        TURN_MARKER_VARIABLES,
        await processMarkersOf(engineDb(database.db), withoutJob),
      );
      logger.warn(
        { turns: withoutJob.length, killedProcesses: leftovers.killed.length },
        "marked turns of a previous run as failed and ended their processes",
      );
    }
    await removeLeftoverTemporaryFiles(database, logger);
    const projects = await database.db.selectFrom("projects").select("workspace_dir").execute();
    // Every existing project's workspace too: they may lie elsewhere.
    await assertDirectoriesIsolated(
      config.claudeConfigDir,
      projects.map((p) => ({
        dir: p.workspace_dir,
        label: `The project workspace ${p.workspace_dir}`,
      })),
    );
    logger.info({ workspacesDir: config.workspacesDir }, "workspaces are isolated");

    // Mara's plugin lives in the service's data directory, outside every project.
    const pluginDir = join(config.dataDir, "plugins", "talkide-mara");
    await writeMaraPlugin(pluginDir);
    const claudePath =
      config.claudePath ?? findBundledClaudePath(import.meta.url) ?? MISSING_CLAUDE;
    if (claudePath === MISSING_CLAUDE) {
      logger.error(
        "the claude binary of @anthropic-ai/claude-code is not installed; turns will fail until TALKIDE_CLAUDE_PATH points at a claude binary",
      );
    }

    let demoModel: FakeMessagesApi | null = null;
    const parentEnv = options.parentEnv ?? process.env;
    let upstreamUrl = config.anthropicBaseUrl ?? ANTHROPIC_API_URL;
    let credential = providerCredential(config, parentEnv);
    if (credential === null && config.anthropicBaseUrl === null) {
      // Loaded only for the demo: with a real key, none of the test doubles is even imported.
      const { demoModelAnswer, startFakeMessagesApi } = await import("@talkide/claude-cli/testing");
      const api = await startFakeMessagesApi({
        // Says back what Mara received (project, active writer, briefing, changed files), read
        // from the request alone: no state shared between the projects it serves.
        reply: (request) => {
          // A long-running demo must not keep every request body in memory.
          api.requests.splice(0);
          return { text: demoModelAnswer(request) };
        },
      });
      demoModel = api;
      cleanups.push(() => api.close());
      upstreamUrl = api.url;
      credential = { apiKey: "talkide-local-demo-model" };
      logger.warn(
        { demoModelUrl: api.url },
        "ANTHROPIC_API_KEY is not set: replies come from a local demo model, not from Claude",
      );
    }
    // Every spawned `claude` talks to the provider through this gateway, with a token of its
    // own: the provider's credential stays in this process (issue 51). Closed after the runner
    // (cleanups run in reverse), once no turn of ours sends anything.
    const gateway = await startGateway({
      upstreamUrl,
      // checkModelAccess refused a base URL without a credential at `serve`; a caller that
      // skipped it gets the CLI's own refusal at the provider.
      credential: credential ?? { apiKey: "" },
      db: database.db,
      limits: config.gateway.limits,
      prices: config.gateway.prices,
      logger,
      nameMiss: nameCacheMiss,
      proxyUrl: upstreamProxy(upstreamUrl, parentEnv),
      ...(options.gatewayClock === undefined ? {} : { clock: options.gatewayClock }),
    });
    cleanups.push(() => gateway.close());
    // Releases before the gateway kept the provider key in this file for a sandboxed CLI's
    // apiKeyHelper; nothing reads it now, and the key must not lie around.
    await rm(join(config.dataDir, "provider-key"), { force: true });

    // Instruction files the agent (or anyone) left in a workspace, moved out before a spawn.
    const quarantineDir = join(config.dataDir, "quarantine");
    // Projects' Claude Code processes kept alive between turns while nothing they read changed
    // (issue 15). The runner ends them on close; the watchdog, if this process dies.
    const warm = new WarmProcessPool({
      capacity: config.warmProcesses,
      idleMs: config.warmIdleMs,
      onEnded: (key, process, reason) => {
        logger.debug({ key, pid: process.pid, reason }, "warm process ended");
      },
    });
    cleanups.push(() => warm.close());
    const runner = new TurnRunner({
      warm,
      db: database.db,
      logger,
      layout: config.contextLayout,
      queueLimit: config.turnQueueLimit,
      queue,
      notifications,
      watchdog,
      demoModel: demoModel !== null,
      gateway,
      ...(options.writeHooks === undefined ? {} : { writeHooks: options.writeHooks }),
      claude: {
        claudePath,
        pluginDir,
        agentName: MARA_AGENT_NAME,
        pinned: maraPluginDigest(),
        claudeConfigDir: config.claudeConfigDir,
        quarantineDir,
        permissionMode: config.claudePermissionMode,
        allowedTools: config.claudeAllowedTools,
        // Commands read nothing of the service, of other projects or of the CLI's own state.
        // The CLI's token is in its environment, which commands inherit; it is its process's
        // alone, dies with it, and commands have no network to reach the gateway with it.
        sandbox: runsCommands
          ? {
              denyRead: [config.dataDir, config.workspacesDir, config.claudeConfigDir],
              allowedHosts: config.sandboxAllowedHosts,
            }
          : null,
        timeoutMs: config.turnTimeoutMs,
        ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
        // Nothing is inherited wholesale: the service's environment may hold a database URL
        // with a password or other secrets, and whatever the CLI gets, the agent's tools can
        // read. The gateway's URL and each process's own token are added per process.
        env: () =>
          launchEnv({
            inherit: {
              parentEnv,
              names: config.claudeEnvPassthrough,
              withheld: PROVIDER_VARIABLES,
            },
            configDir: config.claudeConfigDir,
            tmpDir: claudeTmpDir,
            quiet: true,
            promptCacheTtl: config.promptCacheTtl,
            overrides: options.claudeEnvOverrides,
          }),
      },
    });

    const consoleDir = options.consoleDir === undefined ? builtConsoleDir() : options.consoleDir;
    // The CLI's way in while this process holds the database (see auth/local-admin.ts).
    const adminToken = await loadAdminToken(config.dataDir);
    // The public URL is known once the service listens (port 0 takes any free port); the
    // routes read it only while serving requests, after that.
    const accounts = {
      publicUrl: config.publicUrl ?? `http://127.0.0.1:${config.port}`,
      sessionIdleHours: config.sessionIdleHours,
      tokenLifetimeDays: config.tokenLifetimeDays,
    };
    const app = await buildApp(
      {
        db: database.db,
        databaseKind: database.kind,
        runner,
        layout: config.contextLayout,
        workspacesDir: config.workspacesDir,
        consoleDir,
        adminToken,
        accounts,
        projectsPerUser: config.projectsPerUser,
        quarantineDir,
        usage: { gateway, demoModel: demoModel !== null },
      },
      logger,
      config.connectionLimits,
    );
    cleanups.push(() => app.close());
    // Runs before app.close (cleanups run in reverse): aborting the turns ends their event
    // streams, which the HTTP server would otherwise wait for.
    cleanups.push(() => runner.close());
    // Abandoned turns (a reclaimed one above, or an expired lease) are recorded before any job runs.
    await runner.start();
    const { port, url } = await listen(app, config.host, config.port);
    accounts.publicUrl = config.publicUrl ?? openableUrl(config.host, port);
    cleanups.push(await announceServiceUrl(config.dataDir, url));

    const demo = config.demo ? await seedDemo(database.db, config.workspacesDir) : null;
    // A fresh one-time sign-in link for the demo user at every start: the person at the
    // terminal is the operator, who could issue one anyway (talkide-be sign-in-link).
    const operatorSignIn = consoleDir === null ? null : await demoUserSignIn(database.db);
    if (demo !== null) {
      logger.info({ projectId: demo.project.id }, "created the demo user and project");
    }
    logger.info({ url, layout: config.contextLayout }, "talkide-be listening");
    // The banner comes last, in one piece, after every line the start logged (the log writes
    // synchronously, see logger.ts): its sign-in lines are what a new user needs, and at the
    // default level no request line scrolls them away.
    print(
      startBanner({
        url,
        publicUrl: accounts.publicUrl,
        listensBeyondLoopback: !isLoopbackHost(config.host),
        consoleBuilt: consoleDir !== null,
        demo,
        signIn: operatorSignIn,
        demoModelUrl: demoModel?.url ?? null,
      }),
    );

    return {
      url,
      port,
      database,
      app,
      runner,
      warm,
      demo,
      demoModel,
      gateway,
      claudePath,
      close: () => cleanups.close(),
    };
  } catch (error) {
    await cleanups.close();
    throw error;
  }
}

/** Where Claude Code sends its requests when no ANTHROPIC_BASE_URL is set: the gateway's upstream. */
const ANTHROPIC_API_URL = "https://api.anthropic.com";

/**
 * The provider's credential, which only the gateway holds: ANTHROPIC_API_KEY, else an
 * ANTHROPIC_AUTH_TOKEN the operator lists in TALKIDE_CLAUDE_ENV_PASSTHROUGH (as before the
 * gateway, when it went to the CLI); null when there is none.
 */
function providerCredential(
  config: Config,
  parentEnv: NodeJS.ProcessEnv,
): ProviderCredential | null {
  if (config.anthropicApiKey !== null) return { apiKey: config.anthropicApiKey };
  const token = trimWhiteSpace(parentEnv["ANTHROPIC_AUTH_TOKEN"] ?? "");
  return config.claudeEnvPassthrough.includes("ANTHROPIC_AUTH_TOKEN") && token !== ""
    ? { authToken: token }
    : null;
}

/** Temporary files of an interrupted atomic write (see write-if-changed.ts) are removed. */
async function removeLeftoverTemporaryFiles(database: Database, logger: Logger): Promise<void> {
  const projects = await database.db.selectFrom("projects").select("workspace_dir").execute();
  const targets = projects.flatMap((p) =>
    ["CLAUDE.md", ACTIVE_WRITER_PATH, PROJECT_YML_PATH].map((path) => join(p.workspace_dir, path)),
  );
  const removed = await removeStaleTemporaryFiles(targets);
  if (removed.length > 0)
    logger.warn({ files: removed.length }, "removed temporary files of an interrupted write");
}
