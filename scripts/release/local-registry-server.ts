/**
 * A throwaway npm registry (Verdaccio) for the release test, started as a child process:
 * `node local-registry-server.ts <storage-dir> <lifetime-ms>`.
 *
 * It listens on loopback only, on a port the kernel picks, and prints one JSON line
 * `{"url":"http://127.0.0.1:<port>/"}` once it accepts connections. It has no uplinks, so it
 * never talks to another registry: it serves only what is published to it. It stops when its
 * standard input closes (the parent died or is done) and, whatever happens, after its lifetime.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { runServer } from "verdaccio";

const [storage, lifetimeArg] = process.argv.slice(2);
const lifetimeMs = Number(lifetimeArg);
if (storage === undefined || !Number.isInteger(lifetimeMs) || lifetimeMs <= 0) {
  process.stderr.write("usage: local-registry-server.ts <storage-dir> <lifetime-ms>\n");
  process.exit(64);
}

const stop = (code: number, why: string): never => {
  process.stderr.write(`local registry: stopping (${why})\n`);
  process.exit(code);
};
setTimeout(() => stop(1, `lifetime of ${lifetimeMs} ms is over`), lifetimeMs);
process.stdin.on("end", () => stop(0, "standard input closed"));
process.stdin.resume();

// runServer is typed `Promise<any>`; it resolves to a plain http.Server that is not listening.
const server: Server = (await runServer({
  storage,
  self_path: join(storage, "config.yaml"),
  auth: { htpasswd: { file: join(storage, "htpasswd"), max_users: 10 } },
  uplinks: {},
  packages: {
    "**": { access: "$all", publish: "$authenticated", unpublish: "$authenticated" },
  },
  web: { enable: false },
  log: { type: "stdout", format: "pretty", level: "warn" },
  // verdaccio-audit would forward `npm audit` to the public registry: this one stays offline.
  middlewares: { audit: { enabled: false } },
} as Parameters<typeof runServer>[0])) as Server;

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/` })}\n`);
});
