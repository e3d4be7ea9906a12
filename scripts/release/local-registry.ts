import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Readable } from "node:stream";
import { execa } from "execa";

/** A running throwaway registry: its URL, a publish token, and how to stop it. */
export interface LocalRegistry {
  readonly url: string;
  /** `//127.0.0.1:<port>/`, the prefix npm and pnpm key credentials by in an .npmrc. */
  readonly authKey: string;
  readonly token: string;
  stop(): Promise<void>;
}

const SERVER = fileURLToPath(new URL("./local-registry-server.ts", import.meta.url));

/**
 * Starts Verdaccio on loopback with its storage in `storageDir`, waits until it answers and
 * creates a publishing user. The child stops itself after `lifetimeMs` even if this process
 * dies without calling `stop()`, and when its standard input (a pipe from us) closes.
 */
export async function startLocalRegistry(
  storageDir: string,
  lifetimeMs: number,
): Promise<LocalRegistry> {
  const child = execa(process.execPath, [SERVER, storageDir, String(lifetimeMs)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    reject: false,
    forceKillAfterDelay: 5_000,
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async (): Promise<void> => {
    child.stdin.end();
    child.kill("SIGTERM");
    await child;
  };
  try {
    const exited = child.then((result) => {
      throw new Error(
        `the local registry exited (${String(result.exitCode ?? result.signal)}) before listening:\n${stderr}`,
      );
    });
    // Only the race below reads `exited`; after it, the server ending is expected (stop()).
    exited.catch(() => undefined);
    const url = await Promise.race([listeningUrl(child.stdout, () => stderr), exited]);
    const token = await addUser(url);
    return { url, authKey: url.replace(/^https?:/, ""), token, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The URL the server prints once it listens. */
async function listeningUrl(output: Readable, stderr: () => string): Promise<string> {
  for await (const line of createInterface({ input: output })) {
    const parsed = JSON.parse(line) as { url?: unknown };
    if (typeof parsed.url === "string") return parsed.url;
  }
  throw new Error(`the local registry closed its output before listening:\n${stderr()}`);
}

/** npm's `adduser` request, which Verdaccio's htpasswd plugin answers with a token. */
async function addUser(url: string): Promise<string> {
  const name = "release-test";
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: "release-test-password", type: "user", roles: [] }),
  });
  const body = (await response.json()) as { token?: unknown };
  if (!response.ok || typeof body.token !== "string") {
    throw new Error(`the local registry refused to create a user: ${response.status}`);
  }
  return body.token;
}
