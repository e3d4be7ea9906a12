import { spawn } from "node:child_process";
import { expect } from "vitest";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger, type Logger } from "@talkide/service-kit";
import {
  ApiClient,
  compileCacheEnv,
  makeTempDir,
  migrationFoldersSeeder,
  NODE_FROM_SOURCE,
  removeDir,
  waitFor,
} from "@talkide/service-kit/testing";
import type { HubConfig } from "../config.ts";
import type { HubDb } from "../schema.ts";
import { HUB_MIGRATIONS, startHub as startHubService, type RunningHub } from "../server.ts";
import { daemonCommand, type DaemonCommand } from "../cli/daemon-command.ts";
import { startDaemonProcess, type DaemonProcess } from "./daemon-process.ts";

/** The CLI's entry point, run from source exactly as the daemon's wrapper runs it. */
export const TICLAWK_MAIN = fileURLToPath(new URL("../ticlawk/main.ts", import.meta.url));
export const HUB_MAIN = fileURLToPath(new URL("../bin/talkide-hub.ts", import.meta.url));
/** `talkide-daemon`, found as `talkide-hub local-loop` finds it (the workspace's, from source). */
export const DAEMON_COMMAND = daemonCommand({}, process.cwd());

/**
 * Gives a hub's data directory an embedded database at the hub's latest migration, copied
 * from a template made once per run. A data directory that already has a database keeps it.
 */
export const seedMigratedHubDataDir = migrationFoldersSeeder("hub", [HUB_MIGRATIONS]);

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface RunOptions {
  readonly env?: Readonly<Record<string, string>>;
  readonly stdin?: string;
  readonly cwd?: string;
}

/** Runs a Node entry point from source (with the workspace's source condition) as a child process. */
export function runNode(
  entry: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<CliResult> {
  return runCommand(
    { command: process.execPath, args: [...NODE_FROM_SOURCE, entry] },
    args,
    options,
  );
}

/** Runs a program (such as `DAEMON_COMMAND`) with these arguments as a child process. */
export function runCommand(
  program: DaemonCommand,
  args: readonly string[],
  options: RunOptions = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program.command, [...program.args, ...args], {
      cwd: options.cwd ?? process.cwd(),
      // Only what a user's shell would give it, plus Node's compile cache of the test run (the
      // root vitest config sets it): every `ticlawk` start then reuses the compiled modules.
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: process.env["HOME"] ?? "",
        ...compileCacheEnv(),
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? "");
  });
}

/** The JSON error object a failed ticlawk command prints (one line on stderr). */
export function cliError(result: CliResult): { code: string; message: string; path?: string } {
  const lines = result.stderr.trim().split("\n");
  if (lines.length !== 1 || result.stdout !== "")
    throw new Error(`not a single JSON error: ${JSON.stringify(result)}`);
  return (JSON.parse(lines[0] ?? "") as { error: { code: string; message: string; path?: string } })
    .error;
}

export interface HubFixture {
  /** The daemon the hub hands its deliveries to: its own process, reached over HTTP. */
  readonly test: DaemonProcess;
  readonly running: RunningHub;
  /** The hub's admin API, with its admin token. */
  readonly api: ApiClient;
  readonly url: string;
  readonly db: HubDb;
  /** Holds the hub's (`hub/`) and the daemon's (`daemon/`) data directories. */
  readonly dataDir: string;
  /** Adds a person; returns their token. */
  addHuman(
    handle: string,
    options?: { readonly generalRole?: string; readonly joinGeneral?: boolean },
  ): Promise<string>;
  /** Registers an agent with the daemon and adds it to the hub; returns a long-lived token for driving it by hand. */
  addAgent(
    agentId: string,
    options?: { readonly handle?: string; readonly joinGeneral?: boolean },
  ): Promise<string>;
  createGroup(
    name: string,
    members: readonly { readonly handle: string; readonly role?: string }[],
    description?: string,
  ): Promise<void>;
  /** Runs `ticlawk` as the member with this token. */
  ticlawk(
    token: string,
    args: readonly string[],
    options?: {
      readonly stdin?: string;
      readonly env?: Record<string, string>;
      readonly cwd?: string;
    },
  ): Promise<CliResult>;
  /** Calls the member API directly (setup steps that are not under test). */
  // The caller names the response shape it expects, as with the daemon harness's ApiClient.call.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  hub<T = Record<string, unknown>>(
    token: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
  /** Delivery documents the daemon accepted for an agent, oldest first. */
  deliveries(
    agentId: string,
  ): Promise<{ reason: string | null; payload: Record<string, unknown> }[]>;
  /** Waits until the daemon accepted `count` deliveries for the agent. */
  waitDeliveries(
    agentId: string,
    count: number,
  ): Promise<{ reason: string | null; payload: Record<string, unknown> }[]>;
  /** Stops the hub and the daemon, keeping their data. */
  halt(): Promise<void>;
  /** Stops only the daemon (the hub keeps serving; deliveries wait in its outbox). */
  haltDaemon(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The hub and a real daemon (its own process, started as the local loop starts it), each on a
 * free port with its own database, wired as the local loop wires them: the hub hands
 * deliveries to the daemon's HTTP intake with an intake token, the daemon gives each turn the
 * hub's URL and a turn credential. By default turns fail at once (no `claude` binary), so
 * routing tests see the deliveries without spawning a runtime per message.
 */
export async function startHub(
  options: {
    readonly hubConfig?: Partial<HubConfig>;
    /** The daemon's settings, as its environment variables (`TALKIDE_DAEMON_MAX_ATTEMPTS`, …). */
    readonly daemonEnv?: Readonly<Record<string, string>>;
    readonly dataDir?: string;
    readonly logger?: Logger;
  } = {},
): Promise<HubFixture> {
  const dataDir = options.dataDir ?? (await makeTempDir("talkide-hub-test-"));
  const hubDataDir = join(dataDir, "hub");
  const hubConfig: HubConfig = {
    host: "127.0.0.1",
    port: 0,
    dataDir: hubDataDir,
    databaseUrl: null,
    daemonUrl: "http://127.0.0.1:1",
    intakeToken: null,
    logLevel: "silent",
    ...options.hubConfig,
  };
  if (hubConfig.databaseUrl === null) await seedMigratedHubDataDir(hubDataDir);
  const logger = options.logger ?? createLogger("talkide-hub", "silent");
  const running = await startHubService({ config: hubConfig, logger });
  const test = await startDaemonProcess({
    dataDir: join(dataDir, "daemon"),
    env: {
      TALKIDE_CLAUDE_PATH: join(dataDir, "no-claude-here"),
      TALKIDE_UPSTREAM_URL: running.url,
      TALKIDE_TICLAWK_ENTRY: TICLAWK_MAIN,
      ...options.daemonEnv,
    },
  });
  const intake = await test.api.call<{ token: string }>("POST", "/v1/tokens", {
    name: "hub",
    scope: "intake",
  });
  await running.connectDaemon(test.url, intake.body.token);
  const api = new ApiClient(running.url, running.adminToken);
  const db = running.db;
  const expectOk = <T>(r: { status: number; body: T }, what: string): T => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const fixture: HubFixture = {
    test,
    running,
    api,
    url: running.url,
    db,
    dataDir,
    async addHuman(handle, o = {}) {
      const body = expectOk(
        await api.call<{ token: string }>("POST", "/hub/v1/admin/members", {
          kind: "human",
          handle,
          ...o,
        }),
        `add @${handle}`,
      );
      return body.token;
    },
    async addAgent(agentId, o = {}) {
      await test.api.registerAgent(agentId, join(dataDir, "workspaces", agentId));
      expectOk(
        await api.call("POST", "/hub/v1/admin/members", { kind: "agent", agentId, ...o }),
        `add agent ${agentId}`,
      );
      const handle = o.handle ?? agentId;
      return expectOk(
        await api.call<{ token: string }>(
          "POST",
          `/hub/v1/admin/members/${encodeURIComponent(handle)}/tokens`,
        ),
        `token of @${handle}`,
      ).token;
    },
    async createGroup(name, members, description) {
      expectOk(
        await api.call("POST", "/hub/v1/admin/groups", {
          name,
          members,
          description: description ?? null,
        }),
        `create #${name}`,
      );
    },
    ticlawk(token, args, o = {}) {
      return runNode(TICLAWK_MAIN, args, {
        env: { TICLAWK_HUB_URL: running.url, TICLAWK_TOKEN: token, ...o.env },
        ...(o.stdin === undefined ? {} : { stdin: o.stdin }),
        ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
      });
    },
    hub(token, method, path, body) {
      return api.call(method, `/hub/v1${path}`, body, { token });
    },
    async deliveries(agentId) {
      const all = await test.api.deliveries(agentId);
      return Promise.all(
        all.map(async (d) => ({
          reason: d.reason,
          payload: (await test.api.withPayload(d)).payload,
        })),
      );
    },
    waitDeliveries(agentId, count) {
      return waitFor(async () => {
        const all = await fixture.deliveries(agentId);
        return all.length >= count ? all : null;
      }, `${count} deliveries for ${agentId}`);
    },
    async halt() {
      await test.stop();
      await running.stop();
    },
    haltDaemon() {
      return test.stop();
    },
    async stop() {
      await fixture.halt();
      if (options.dataDir === undefined) await removeDir(dataDir);
    },
  };
  return fixture;
}

/** The hub most CLI suites start from: people, agents, and `#kitchen` with all of them in it. */
export async function startKitchen(options: {
  readonly humans: readonly string[];
  readonly agents: readonly string[];
  readonly description?: string;
}): Promise<{ readonly hub: HubFixture; readonly tokens: Readonly<Record<string, string>> }> {
  const hub = await startHub();
  const tokens: Record<string, string> = {};
  for (const handle of options.humans) tokens[handle] = await hub.addHuman(handle);
  for (const agentId of options.agents) tokens[agentId] = await hub.addAgent(agentId);
  const [owner] = options.humans;
  await hub.createGroup(
    "kitchen",
    [{ handle: owner ?? "", role: "owner" }, ...options.agents.map((handle) => ({ handle }))],
    options.description,
  );
  return { hub, tokens };
}

/** Posts a message through the member API (a set-up step); returns its id. */
export async function post(
  hub: HubFixture,
  token: string,
  target: string,
  body: string,
): Promise<string> {
  const r = await hub.hub<{ message: { id: string } }>(token, "POST", "/messages", {
    target,
    body,
  });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.message.id;
}

/** One `ticlawk` call that must fail: who runs it, its arguments, the error code and exit status. */
export type Refusal = readonly [
  token: string,
  args: readonly string[],
  code: string,
  exit?: number,
];

/** Runs the refusals in order (later ones may depend on earlier ones changing nothing). */
export async function expectRefusals(hub: HubFixture, refusals: readonly Refusal[]): Promise<void> {
  for (const [token, args, code, exit = 1] of refusals) {
    const r = await hub.ticlawk(token, args);
    expect({ args, exit: r.code, code: cliError(r).code }).toEqual({ args, exit, code });
  }
}
