// The service as a child process of the test (see service-child.ts), for tests that kill it.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { NODE_FROM_SOURCE, stopWithOwner } from "@talkide/service-kit/testing";
import { baseEnv, seedEmbeddedCluster, STARTED } from "./cli-process.ts";

const CHILD = fileURLToPath(new URL("./service-child.ts", import.meta.url));

export interface ServiceChild {
  readonly process: ChildProcessByStdio<null, Readable, Readable>;
  readonly url: string;
  /** Everything the child wrote on stdout so far. */
  output(): string;
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `service-child.ts` (the service, configured from its environment) on a data
 * directory and resolves once it listens and printed its start banner. `env` is added to the
 * base environment (the fake claude, port 0, a test key). Without a `DATABASE_URL` the data
 * directory gets a migrated embedded database first (`seedEmbeddedCluster`).
 */
export async function startServiceChild(
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ServiceChild> {
  const childEnv = { ...baseEnv(dataDir), ...env };
  await seedEmbeddedCluster(childEnv);
  const child = spawn(process.execPath, [...NODE_FROM_SOURCE, CHILD], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  stopWithOwner(child);
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
      for (const wake of waiters) wake();
    });
  });
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(stdout);
        if (match !== null) {
          waiters.delete(check);
          resolve(match);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(check);
          reject(new Error(`the service exited before printing ${pattern}: ${stdout}\n${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });
  // The banner after the listening line: the start is complete (see STARTED).
  const listening = await waitFor(STARTED);
  return { process: child, url: listening[1] ?? "", output: () => stdout, waitFor, exited };
}
