import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { FAKE_CLAUDE_PATH } from "@talkide/claude-cli/testing";
import { NODE_FROM_SOURCE, stopWithOwner } from "@talkide/service-kit/testing";
import { ApiClient, seedMigratedDaemonDataDir } from "./harness.ts";

export const DAEMON_BIN = fileURLToPath(new URL("../bin/talkide-daemon.ts", import.meta.url));

/** Runs `talkide-daemon <args>` from source with this Node, as a user would run the bin. */
export function spawnDaemonBin(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): ChildProcess {
  return spawn(process.execPath, [...NODE_FROM_SOURCE, DAEMON_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export interface ChildDaemon {
  readonly process: ChildProcess;
  readonly url: string;
  readonly api: ApiClient;
  /** Every log line so far (JSON objects). */
  readonly logs: Record<string, unknown>[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `talkide-daemon start` as its own process on a free port (with the fake `claude`
 * unless the env says otherwise) and waits for its "listening" log line. Without a
 * `DATABASE_URL` the data directory gets a migrated embedded database first (kept if it has
 * one), as every daemon a test starts in-process does: an empty directory would make the
 * daemon run initdb and every migration in WebAssembly, about 4 s of CPU.
 */
export async function startChildDaemon(
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ChildDaemon> {
  if (env["DATABASE_URL"] === undefined) await seedMigratedDaemonDataDir(dataDir);
  const child = spawnDaemonBin(["start"], {
    TALKIDE_DAEMON_PORT: "0",
    TALKIDE_DAEMON_DATA_DIR: dataDir,
    TALKIDE_CLAUDE_PATH: FAKE_CLAUDE_PATH,
    TALKIDE_HOST_ID: "child-host",
    TALKIDE_DAEMON_LOG_LEVEL: "info",
    ...env,
  });
  stopWithOwner(child);
  const logs: Record<string, unknown>[] = [];
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
    });
  });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout ?? process.stdin });
    lines.on("line", (line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry["msg"] === "listening" && typeof entry["url"] === "string") resolve(entry["url"]);
      } catch {
        logs.push({ raw: line });
      }
    });
    void exited.then(({ code, signal }) => {
      reject(new Error(`daemon exited (${String(code ?? signal)}) before listening: ${stderr}`));
    });
  });
  const token = (await readFile(join(dataDir, "admin-token"), "utf8")).trim();
  return { process: child, url, api: new ApiClient(url, token), logs, exited };
}
