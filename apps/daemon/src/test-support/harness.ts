import { readFileSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { FAKE_CLAUDE_PATH } from "@talkide/claude-cli/testing";
import { DEFAULT_LIMITS, DEFAULT_PRICES, GATEWAY_MIGRATIONS } from "@talkide/gateway";
import { ENGINE_MIGRATIONS } from "@talkide/turn-engine";
import { createLogger } from "@talkide/service-kit";
import {
  ApiClient as ServiceApiClient,
  migrationFoldersSeeder,
  waitFor,
  type ApiResponse,
} from "@talkide/service-kit/testing";
import { WorkQueue } from "@talkide/work-queue";
import { QUEUE_SCHEMA_BUILD } from "@talkide/work-queue/testing";
import type { DaemonConfig } from "../config.ts";
import { startDaemon, type RunningDaemon, type StartDaemonOptions } from "../daemon.ts";
import { CORE_MIGRATIONS } from "../db/core-migrations.ts";
import type { DeliveryView, SessionView, TurnView } from "../http/views.ts";
import type { DaemonExtension } from "../extension.ts";

// The kit's generic test helpers, under the names the daemon's suites have always imported.
export { makeTempDir, removeDir, seedPgliteDataDir, waitFor } from "@talkide/service-kit/testing";

/**
 * Gives a daemon's data directory an embedded database at the daemon's latest migration,
 * copied from a template made once per run (a daemon with extensions of its own migrates
 * theirs when it starts). A data directory that already has a database keeps it.
 */
export const seedMigratedDaemonDataDir = migrationFoldersSeeder(
  "daemon",
  [ENGINE_MIGRATIONS, CORE_MIGRATIONS, GATEWAY_MIGRATIONS],
  {
    // The work queue's tables too: pg-boss's install is about 0.15 s of WebAssembly a daemon.
    files: [QUEUE_SCHEMA_BUILD],
    prepare: (pglite) => WorkQueue.install(pglite),
  },
);

/**
 * A temporary directory on disk, for a suite whose agents run commands (with the real CLI):
 * Claude Code's sandbox gives every command a /dev of its own, so a data directory or a
 * workspace under /dev/shm (where the suites keep their files, see scripts/test-tmpdir.ts)
 * would not exist for them, the `ticlawk` wrapper included.
 */
export function makeDiskTempDir(prefix = "talkide-test-"): Promise<string> {
  return mkdtemp(join("/var/tmp", prefix));
}

export function testConfig(dataDir: string, overrides: Partial<DaemonConfig> = {}): DaemonConfig {
  return {
    host: "127.0.0.1",
    port: 0,
    dataDir,
    databaseUrl: null,
    concurrency: 4,
    turnTimeoutMs: 60_000,
    maxAttempts: 3,
    warmProcesses: 4,
    warmIdleMs: 600_000,
    leaseSeconds: 10,
    claudePath: FAKE_CLAUDE_PATH,
    claudeConfigDir: join(dataDir, "claude"),
    claudeExtraArgs: [],
    sandboxDenyRead: [],
    promptCacheTtl: "1h",
    hostId: "test-host",
    upstreamUrl: null,
    ticlawkEntry: null,
    gateway: { limits: DEFAULT_LIMITS, prices: DEFAULT_PRICES },
    logLevel: "silent",
    ...overrides,
  };
}

export interface TestDaemon {
  readonly daemon: RunningDaemon;
  readonly api: ApiClient;
  stop(): Promise<void>;
}

/** Starts an in-process daemon on a free port with the fake `claude`. */
export async function startTestDaemon(options: {
  readonly dataDir: string;
  readonly config?: Partial<DaemonConfig>;
  /** Added to this process's environment for the turns' child processes. */
  readonly childEnv?: Readonly<Record<string, string>>;
  /** Instead of this process's environment: the whole base of the children's environment. */
  readonly childBaseEnv?: Readonly<Record<string, string>>;
  readonly standingPrompt?: StartDaemonOptions["standingPrompt"];
  readonly extensions?: StartDaemonOptions["extensions"];
  readonly killGraceMs?: number;
  readonly logger?: StartDaemonOptions["logger"];
}): Promise<TestDaemon> {
  const config = testConfig(options.dataDir, options.config);
  if (config.databaseUrl === null) await seedMigratedDaemonDataDir(options.dataDir);
  const daemon = await startDaemon({
    config,
    logger: options.logger ?? createLogger("talkide-daemon", "silent"),
    childBaseEnv: { ...(options.childBaseEnv ?? process.env), ...options.childEnv },
    ...(options.standingPrompt === undefined ? {} : { standingPrompt: options.standingPrompt }),
    ...(options.extensions === undefined ? {} : { extensions: options.extensions }),
    killGraceMs: options.killGraceMs ?? 200,
  });
  return { daemon, api: new ApiClient(daemon.url, daemon.adminToken), stop: () => daemon.stop() };
}

/** The kit's test client, with the daemon's own routes. */
export class ApiClient extends ServiceApiClient {
  async registerAgent(id: string, workspaceDir: string): Promise<void> {
    const r = await this.call("PUT", `/v1/agents/${id}`, { workspaceDir });
    if (r.status !== 201 && r.status !== 200)
      throw new Error(`register failed: ${JSON.stringify(r.body)}`);
  }

  async deliver(
    agentId: string,
    delivery: unknown,
  ): Promise<ApiResponse<{ status: string; delivery: DeliveryView }>> {
    return this.call("POST", `/v1/agents/${agentId}/deliveries`, delivery);
  }

  async deliveries(query = ""): Promise<DeliveryView[]> {
    const r = await this.call<{ deliveries: DeliveryView[] }>(
      "GET",
      `/v1/deliveries?limit=1000${query}`,
    );
    return r.body.deliveries;
  }

  async delivery(id: string): Promise<{ delivery: DeliveryView; turns: TurnView[] }> {
    const r = await this.call<{ delivery: DeliveryView; turns: TurnView[] }>(
      "GET",
      `/v1/deliveries/${id}`,
    );
    if (r.status !== 200) throw new Error(`delivery ${id}: ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** `POST /v1/deliveries/:id/retry`: a failed delivery back in line. */
  async retry(id: string): Promise<ApiResponse<{ status: string; delivery: DeliveryView }>> {
    return this.call("POST", `/v1/deliveries/${id}/retry`);
  }

  async sessions(query = ""): Promise<SessionView[]> {
    const r = await this.call<{ sessions: SessionView[] }>(
      "GET",
      `/v1/sessions?limit=1000${query}`,
    );
    return r.body.sessions;
  }

  async turns(query = ""): Promise<TurnView[]> {
    const r = await this.call<{ turns: TurnView[] }>("GET", `/v1/turns?limit=1000${query}`);
    return r.body.turns;
  }

  /** Waits until every listed delivery has reached completed or failed. */
  async settled(ids: readonly string[]): Promise<DeliveryView[]> {
    return waitFor(
      async () => {
        const all = await this.deliveries();
        const mine = all.filter((d) => ids.includes(d.id));
        return mine.length === ids.length &&
          mine.every((d) => d.state === "completed" || d.state === "failed")
          ? mine
          : null;
      },
      `deliveries ${ids.join(", ")} to settle`,
      // A bound, not a timing assertion: a loaded machine, or a lease to expire after a kill.
      240_000,
    );
  }
}

let messageCounter = 0;

/** A valid delivery document (a group message mentioning the agent), with overrides. */
export function makeDelivery(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  messageCounter += 1;
  return {
    id: `m${process.pid}-${messageCounter}`,
    seq: messageCounter,
    created_at: "2026-05-02T14:32:11Z",
    conversation_type: "group",
    conversation_id: "c-general",
    conversation_name: "general",
    sender_type: "human",
    sender_display_name: "anna",
    sender_user_id: "u-anna",
    reason: "mention",
    text: "Could you look at the login bug?",
    ...overrides,
  };
}

/**
 * A daemon extension that gives chosen messages extra child environment (for the fake
 * `claude`: a scenario such as crash or hang for one delivery while others succeed).
 */
export function perMessageEnv(env: Map<string, Readonly<Record<string, string>>>): DaemonExtension {
  return {
    name: "test-per-message-env",
    childEnv: (turn) => env.get(turn.messageId) ?? {},
  };
}

/** A process that exists and is not a zombie (killed, waiting for its new parent to reap it). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The non-empty lines of a log file; none while it does not exist. */
export async function readLines(file: string): Promise<string[]> {
  return (await readFile(file, "utf8").catch(() => "")).split("\n").filter((l) => l !== "");
}
