import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { NODE_FROM_SOURCE } from "@talkide/service-kit/testing";

/**
 * Resolves once `check` holds; a minute without it fails the test there, not at its timeout.
 * Checked every 10 ms: the checks read this process's memory, and a lease test waits out a
 * lease here (about 13 s), where a 1 ms timer woke the worker a thousand times a second.
 */
export function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (check()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`still not so after a minute: ${check.toString()}`));
      }
    }, 10);
  });
}

/**
 * Lets a real process (`lease-holder.ts`) take the job "orphaned" of `queue` and kills it with
 * SIGKILL while it holds the job: the instance whose death the lease and restart tests observe.
 * `extra` are the holder's further arguments (say, to start the job at its enqueue).
 */
export async function killHolderWhileRunning(
  where: { readonly kind: string; readonly location: string },
  queue: string,
  leaseSeconds: number,
  extra: readonly string[] = [],
): Promise<void> {
  const holder = spawn(
    process.execPath,
    [
      ...NODE_FROM_SOURCE,
      fileURLToPath(new URL("./lease-holder.ts", import.meta.url)),
      where.kind,
      where.location,
      queue,
      String(leaseSeconds),
      ...extra,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  holder.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await until(() => output.includes("running orphaned"));
  holder.kill("SIGKILL");
  await once(holder, "exit");
}
