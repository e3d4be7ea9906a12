import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { derivePorts, PLATFORM_PORTS } from "../derive.ts";
import { inspectPort } from "../socket-table.ts";

const LISTEN_SCRIPT = fileURLToPath(new URL("./listen.ts", import.meta.url));
export const BIN = fileURLToPath(new URL("../bin/ports.ts", import.meta.url));

export interface Listener {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves with the signal that ended the process (null if it exited on its own). */
  readonly ended: Promise<NodeJS.Signals | null>;
  readonly stop: () => Promise<void>;
}

/** Starts a real process that listens on `host:port` and waits until it does. */
export async function startListener(
  port: number,
  host = "127.0.0.1",
  mode: "normal" | "ignore-sigterm" = "normal",
): Promise<Listener> {
  if (port === PLATFORM_PORTS.be || port === PLATFORM_PORTS.fe) {
    throw new Error("Tests never listen on the platform's ports.");
  }
  const child = spawn(process.execPath, [LISTEN_SCRIPT, String(port), host, mode], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ended = once(child, "exit").then(([, signal]) => signal as NodeJS.Signals | null);
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("listening")) resolve();
    });
    void ended.then(() => {
      reject(new Error(`listener on ${host}:${port} exited before listening: ${stderr}`));
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("listener has no pid");
  return {
    child,
    pid,
    ended,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await ended;
    },
  };
}

export function isRunning(listener: Listener): boolean {
  return listener.child.exitCode === null && listener.child.signalCode === null;
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the talkide-ports bin from source in a child process, the way plugin scripts do. */
export async function runBin(
  args: readonly string[],
  options: { cwd?: string; input?: Uint8Array | string } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, ["--conditions=@talkide/source", BIN, ...args], {
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? "");
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}

/** A free port chosen by the OS (listen on 0, then close). */
export async function ephemeralPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function portIsFree(port: number): Promise<boolean> {
  if ((await inspectPort(port)).listening) return false;
  const server = createServer();
  try {
    server.listen({ port, host: "127.0.0.1", exclusive: true });
    await once(server, "listening");
    server.close();
    await once(server, "close");
    return true;
  } catch {
    return false;
  }
}

/**
 * A project id whose derived BE and FE ports are both free right now, picked at random so
 * that test files running side by side rarely pick the same one.
 */
export async function freeProjectId(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const id = 1 + Math.floor(Math.random() * 999);
    const ports = derivePorts(id);
    if ((await portIsFree(ports.be)) && (await portIsFree(ports.fe))) return id;
  }
  throw new Error("No project id with free ports found in 50 tries.");
}
