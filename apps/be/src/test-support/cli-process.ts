// Runs the talkide-be bin from source as a child process, the way a user runs it.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FAKE_CLAUDE_PATH } from "@talkide/claude-cli/testing";
import { compileCacheEnv, NODE_FROM_SOURCE, stopWithOwner } from "@talkide/service-kit/testing";
import { seedMigratedCluster } from "./migrated-cluster.ts";

export const BIN = fileURLToPath(new URL("../bin/talkide-be.ts", import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function baseEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    TALKIDE_DATA_DIR: dataDir,
    // The default workspaces live under the user's data home; tests keep theirs in the temp dir.
    TALKIDE_WORKSPACES_DIR: join(dataDir, "workspaces"),
    TALKIDE_PORT: "0",
    TALKIDE_CLAUDE_PATH: FAKE_CLAUDE_PATH,
    ANTHROPIC_API_KEY: "test-key",
    ...compileCacheEnv(),
  };
}

/**
 * Gives the environment's data directory a migrated embedded database (migrated-cluster.ts),
 * making the directory (owner-only, as the service does) when missing; nothing for a
 * PostgreSQL server. A service started on a directory without a database would run initdb and
 * every migration in WebAssembly, about 4 s of CPU, which no test of these helpers is about
 * (service-kit's own tests open a data directory without a database).
 */
export async function seedEmbeddedCluster(env: NodeJS.ProcessEnv): Promise<void> {
  const dataDir = env.TALKIDE_DATA_DIR;
  if (env.DATABASE_URL !== undefined || dataDir === undefined) return;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  await seedMigratedCluster(dataDir);
}

export async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  await seedEmbeddedCluster(env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FROM_SOURCE, BIN, ...args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.once("error", reject);
    child.once("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The service's last words at start: the "talkide-be listening" log line (its URL captured),
 * then the start banner, which is printed in one write after every log line of the start.
 */
export const STARTED = /"url":"(http:\/\/[^"]+)",[^\n]*"msg":"talkide-be listening"[^\n]*\n[^{]/;

/**
 * Starts `serve` and resolves once it listens and printed its banner; `stop()` sends SIGTERM
 * and waits.
 */
export async function serve(env: NodeJS.ProcessEnv): Promise<{
  url: string;
  pid: number | undefined;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<number | null>;
}> {
  await seedEmbeddedCluster(env);
  const child = spawn(process.execPath, [...NODE_FROM_SOURCE, BIN, "serve"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  stopWithOwner(child);
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = STARTED.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void closed.then(() => {
      reject(new Error(`serve exited early: ${stdout}\n${stderr}`));
    });
  });
  return {
    url,
    pid: child.pid,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM");
      return closed;
    },
  };
}
