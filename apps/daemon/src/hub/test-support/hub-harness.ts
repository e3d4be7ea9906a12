import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DaemonConfig } from "../../config.ts";
import {
  makeTempDir,
  removeDir,
  startTestDaemon,
  waitFor,
  type ApiClient,
  type TestDaemon,
} from "../../test-support/harness.ts";
import { hubExtension } from "../extension.ts";
import type { HubDb, HubTables } from "../schema.ts";

/** The CLI's entry point, run from source exactly as the daemon's wrapper runs it. */
export const TICLAWK_MAIN = fileURLToPath(new URL("../../ticlawk/main.ts", import.meta.url));
export const DAEMON_MAIN = fileURLToPath(new URL("../../bin/talkide-daemon.ts", import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a Node entry point from source (with the workspace's source condition) as a child process. */
export function runNode(
  entry: string,
  args: readonly string[],
  options: {
    readonly env?: Readonly<Record<string, string>>;
    readonly stdin?: string;
    readonly cwd?: string;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@talkide/source", entry, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...options.env },
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
  readonly test: TestDaemon;
  readonly api: ApiClient;
  readonly url: string;
  readonly db: HubDb;
  readonly dataDir: string;
  /** Adds a person; returns their token. */
  addHuman(
    handle: string,
    options?: { readonly generalRole?: string; readonly joinGeneral?: boolean },
  ): Promise<string>;
  /** Registers a daemon agent and adds it to the hub; returns a long-lived token for driving it by hand. */
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
  stop(): Promise<void>;
}

/**
 * A real daemon with the hub, on a free port and a fresh embedded database. By default
 * turns fail at once (no `claude` binary), so routing tests see the deliveries without
 * spawning a runtime per message; the end-to-end test passes the fake `claude` instead.
 */
export async function startHub(
  options: {
    readonly config?: Partial<DaemonConfig>;
    readonly childEnv?: Readonly<Record<string, string>>;
    readonly dataDir?: string;
    readonly logger?: Parameters<typeof startTestDaemon>[0]["logger"];
  } = {},
): Promise<HubFixture> {
  const dataDir = options.dataDir ?? (await makeTempDir("talkide-hub-test-"));
  const test = await startTestDaemon({
    dataDir,
    config: { claudePath: join(dataDir, "no-claude-here"), ...options.config },
    ...(options.childEnv === undefined ? {} : { childEnv: options.childEnv }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    extensions: [hubExtension()],
  });
  const { api } = test;
  const db: HubDb = test.daemon.db.$extendTables<HubTables>();
  const expectOk = <T>(r: { status: number; body: T }, what: string): T => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const fixture: HubFixture = {
    test,
    api,
    url: test.daemon.url,
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
      await api.registerAgent(agentId, join(dataDir, "workspaces", agentId));
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
        env: { TICLAWK_HUB_URL: test.daemon.url, TICLAWK_TOKEN: token, ...o.env },
        ...(o.stdin === undefined ? {} : { stdin: o.stdin }),
        ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
      });
    },
    hub(token, method, path, body) {
      return api.call(method, `/hub/v1${path}`, body, { token });
    },
    async deliveries(agentId) {
      const rows = await test.daemon.db
        .selectFrom("deliveries")
        .select(["reason", "payload"])
        .where("agent_id", "=", agentId)
        .orderBy("seq")
        .execute();
      return rows.map((r) => ({ reason: r.reason, payload: r.payload as Record<string, unknown> }));
    },
    waitDeliveries(agentId, count) {
      return waitFor(async () => {
        const all = await fixture.deliveries(agentId);
        return all.length >= count ? all : null;
      }, `${count} deliveries for ${agentId}`);
    },
    async stop() {
      await test.stop();
      if (options.dataDir === undefined) await removeDir(dataDir);
    },
  };
  return fixture;
}
