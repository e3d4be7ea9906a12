import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * How long a client may take and how many connections one address may hold. Without them a
 * client that opens connections and sends nothing (or a body byte a minute) keeps each one
 * open, and enough of them exhaust the process's file descriptors for everyone.
 */
export interface ConnectionLimits {
  /** A request's headers must have arrived this long after the connection (or the previous request). */
  readonly headersTimeoutMs: number;
  /** A whole request, headers and body, must have arrived within this; the answer is not limited. */
  readonly requestTimeoutMs: number;
  /**
   * An idle kept-alive connection is closed after this (Fastify's own default: longer than
   * the clients' and proxies' idle timeouts, so a client never reuses a socket as it closes;
   * the per-address cap bounds how many wait).
   */
  readonly keepAliveTimeoutMs: number;
  /** Open connections one client address may hold; more are closed at once. 0: no cap. */
  readonly maxConnectionsPerAddress: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 72_000,
  maxConnectionsPerAddress: 64,
};

/**
 * Fastify's constructor options for the limits' timeouts. Node checks them every
 * `connectionsCheckingInterval` (a tenth of the headers timeout here, at most a second) and
 * answers 408 before closing.
 */
export function connectionTimeoutOptions(limits: ConnectionLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: { headersTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(limits.headersTimeoutMs / 10)),
      ),
    },
  };
}

/**
 * Closes a connection at once when its address already holds `max` open ones (0: no cap).
 * Behind a reverse proxy every client shares the proxy's address: raise the cap there, or
 * set it to 0 and let the proxy limit its clients.
 */
export function limitConnectionsPerAddress(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.prependListener("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
