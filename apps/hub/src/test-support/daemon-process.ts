import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ADMIN_TOKEN_FILE } from "@talkide/service-kit";
import {
  ApiClient,
  NODE_FROM_SOURCE,
  seedPgliteDataDir,
  stopWithOwner,
  waitFor,
} from "@talkide/service-kit/testing";
import { daemonCommand } from "../cli/daemon-command.ts";

/** A delivery as the daemon's read API shows it (the fields the hub's tests look at). */
export interface DaemonDelivery {
  readonly id: string;
  readonly seq: number;
  readonly agentId: string;
  readonly messageId: string;
  readonly reason: string | null;
  readonly state: string;
  readonly payload?: Record<string, unknown>;
}

/** The daemon's public HTTP API, as the hub's tests drive it (admin token). */
export class DaemonApi extends ApiClient {
  async registerAgent(agentId: string, workspaceDir: string): Promise<void> {
    const r = await this.call("PUT", `/v1/agents/${agentId}`, { workspaceDir });
    if (r.status !== 201 && r.status !== 200)
      throw new Error(`register ${agentId}: ${r.status} ${JSON.stringify(r.body)}`);
  }

  /** Every delivery the daemon holds (or one agent's), oldest first. */
  async deliveries(agentId?: string): Promise<DaemonDelivery[]> {
    const query = agentId === undefined ? "" : `&agentId=${encodeURIComponent(agentId)}`;
    const r = await this.call<{ deliveries: DaemonDelivery[] }>(
      "GET",
      `/v1/deliveries?limit=1000${query}`,
    );
    if (r.status !== 200) throw new Error(`deliveries: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.deliveries.toReversed();
  }

  /** One delivery with its document (the message as the hub handed it over). */
  async withPayload(
    delivery: DaemonDelivery,
  ): Promise<DaemonDelivery & { readonly payload: Record<string, unknown> }> {
    const r = await this.call<{ delivery: DaemonDelivery & { payload: Record<string, unknown> } }>(
      "GET",
      `/v1/deliveries/${delivery.id}?payload=true`,
    );
    if (r.status !== 200) throw new Error(`delivery ${delivery.id}: ${JSON.stringify(r.body)}`);
    return r.body.delivery;
  }

  /** Waits until every listed delivery has reached completed or failed. */
  async settled(ids: readonly string[]): Promise<DaemonDelivery[]> {
    return waitFor(
      async () => {
        const mine = (await this.deliveries()).filter((d) => ids.includes(d.id));
        return mine.length === ids.length &&
          mine.every((d) => d.state === "completed" || d.state === "failed")
          ? mine
          : null;
      },
      `deliveries ${ids.join(", ")} to settle`,
      // A bound, not a timing assertion: a loaded machine.
      240_000,
    );
  }
}

export interface DaemonProcess {
  readonly process: ChildProcess;
  readonly url: string;
  readonly api: DaemonApi;
  /** Stops the daemon (SIGTERM) and waits for it to exit; its data stays. */
  stop(): Promise<void>;
}

/**
 * A real daemon as its own process, started the way `talkide-hub local-loop` starts one
 * (`daemonCommand`: the workspace's `talkide-daemon start`), on a free port with its embedded
 * database in `dataDir`. The hub's tests reach it over HTTP only, as the hub does.
 */
export async function startDaemonProcess(options: {
  readonly dataDir: string;
  /** `TALKIDE_*` settings of the daemon (and of its turns' child processes). */
  readonly env: Readonly<Record<string, string>>;
}): Promise<DaemonProcess> {
  await seedPgliteDataDir(options.dataDir);
  const daemon = daemonCommand(process.env, process.cwd());
  // The workspace's daemon from source, with the Node arguments of every process a test starts.
  const entry = daemon.args.at(-1);
  const nodeArgs =
    daemon.command === process.execPath && entry !== undefined
      ? [...NODE_FROM_SOURCE, entry]
      : daemon.args;
  // This process's environment, without a developer's own daemon settings or database.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("TALKIDE_DAEMON_") && name !== "DATABASE_URL",
    ),
  );
  const child = spawn(daemon.command, [...nodeArgs, "start"], {
    env: {
      ...base,
      TALKIDE_DAEMON_HOST: "127.0.0.1",
      TALKIDE_DAEMON_PORT: "0",
      TALKIDE_DAEMON_DATA_DIR: options.dataDir,
      TALKIDE_HOST_ID: "hub-test-host",
      TALKIDE_CLAUDE_CONFIG_DIR: join(options.dataDir, "claude"),
      ...options.env,
      // For the "listening" line.
      TALKIDE_DAEMON_LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  stopWithOwner(child);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      resolve();
    });
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry["msg"] === "listening" && typeof entry["url"] === "string") resolve(entry["url"]);
      } catch {
        // Not a log line: nothing to look at.
      }
    });
    child.once("error", reject);
    void exited.then(() => {
      reject(new Error(`the daemon exited before it listened: ${stderr}`));
    });
  });
  const token = (await readFile(join(options.dataDir, ADMIN_TOKEN_FILE), "utf8")).trim();
  return {
    process: child,
    url,
    api: new DaemonApi(url, token),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
