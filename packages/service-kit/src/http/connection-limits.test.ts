import { request } from "node:http";
import { connect, type Socket } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import {
  connectionTimeoutOptions,
  limitConnectionsPerAddress,
  type ConnectionLimits,
} from "./connection-limits.ts";

const apps: FastifyInstance[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const app of apps.splice(0)) await app.close();
});

async function serve(limits: ConnectionLimits): Promise<number> {
  const app = Fastify({ ...connectionTimeoutOptions(limits) });
  limitConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress);
  app.get("/ok", () => ({ ok: true }));
  app.post("/echo", (req) => ({ got: req.body }));
  apps.push(app);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** A raw connection from `from`; resolves with what the server sent once it closed it. */
function rawClient(
  port: number,
  from: string,
  send = "",
): { socket: Socket; closed: Promise<string> } {
  const socket = connect({ host: "127.0.0.1", port, localAddress: from });
  sockets.push(socket);
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("utf8");
  });
  socket.on("error", () => undefined);
  if (send !== "") socket.on("connect", () => socket.write(send));
  const closed = new Promise<string>((resolve) =>
    socket.on("close", () => {
      resolve(received);
    }),
  );
  return { socket, closed };
}

function get(port: number, from: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/ok", localAddress: from, agent: false },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const LIMITS: ConnectionLimits = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  keepAliveTimeoutMs: 5_000,
  maxConnectionsPerAddress: 3,
};

describe("connection limits", () => {
  it("closes a connection that sends no headers with 408 after the headers timeout", async () => {
    const port = await serve(LIMITS);
    const idle = rawClient(port, "127.0.0.1");
    expect(await idle.closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("closes a request whose body does not arrive within the request timeout", async () => {
    const port = await serve(LIMITS);
    const slow = rawClient(
      port,
      "127.0.0.1",
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    );
    expect(await slow.closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("caps open connections per client address; other addresses are served", async () => {
    const port = await serve({ ...LIMITS, headersTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
    const held = [1, 2, 3].map(() => rawClient(port, "127.0.0.1"));
    await Promise.all(
      held.map(({ socket }) => new Promise((resolve) => socket.once("connect", resolve))),
    );
    // The fourth from the same address is closed without an answer.
    const refused = rawClient(port, "127.0.0.1", "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await refused.closed).toBe("");
    // Another address is not affected.
    expect(await get(port, "127.0.0.2")).toBe(200);
    // A closed connection frees its place.
    held[0]?.socket.destroy();
    await held[0]?.closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await get(port, "127.0.0.1")).toBe(200);
  });

  it("0 means no cap", async () => {
    const port = await serve({ ...LIMITS, maxConnectionsPerAddress: 0 });
    const held = [1, 2, 3, 4].map(() => rawClient(port, "127.0.0.1"));
    await Promise.all(
      held.map(({ socket }) => new Promise((resolve) => socket.once("connect", resolve))),
    );
    expect(await get(port, "127.0.0.1")).toBe(200);
  });
});
