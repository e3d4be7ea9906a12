import { createServer as createHttpsServer } from "node:https";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messagesBody, PROVIDER_KEY, send, startBench, type Bench } from "./test-support/bench.ts";
import { CERT, KEY } from "./test-support/impostor.ts";

/** A forward proxy that tunnels `CONNECT host:port` (what undici's ProxyAgent asks for). */
function startTunnel(tunnelled: string[]): Promise<Server> {
  const proxy = createServer((client) => {
    client.once("data", (head: Buffer) => {
      const target = /^CONNECT (\S+):(\d+) HTTP\/1\.1/.exec(head.toString("latin1"));
      if (target === null) {
        client.end("HTTP/1.1 405 Method Not Allowed\r\n\r\n");
        return;
      }
      tunnelled.push(`${target[1]}:${target[2]}`);
      const socket = connect(Number(target[2]), target[1], () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        socket.pipe(client);
        client.pipe(socket);
      });
      socket.on("error", () => {
        client.destroy();
      });
      client.on("error", () => {
        socket.destroy();
      });
    });
  });
  return new Promise((resolve) => {
    proxy.listen(0, "127.0.0.1", () => {
      resolve(proxy);
    });
  });
}

/** An operator whose machine reaches the provider only through a proxy (TALKIDE's HTTPS_PROXY). */
describe("the gateway behind a forward proxy", () => {
  const tunnelled: string[] = [];
  let proxy: Server;
  let bench: Bench;
  beforeAll(async () => {
    proxy = await startTunnel(tunnelled);
    bench = await startBench({
      gateway: { proxyUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` },
    });
  });
  afterAll(async () => {
    await bench.close();
    await new Promise<void>((resolve) => {
      proxy.close(() => {
        resolve();
      });
    });
  });

  it("reaches the provider through it, with the provider's key", async () => {
    const credential = bench.gateway.issue({ projectKey: "p" });
    const answer = await send(bench.gateway.url, {
      path: "/v1/messages",
      headers: { "content-type": "application/json", "x-api-key": credential.token },
      body: messagesBody({ messages: [{ role: "user", text: "hi" }] }),
    });
    expect(answer.status).toBe(200);
    expect(tunnelled).toEqual([new URL(bench.fake.url).host]);
    expect(bench.fake.requests[0]?.headers["x-api-key"]).toBe(PROVIDER_KEY);
  });

  it("checks the provider's certificate through the tunnel too", async () => {
    const seen: string[] = [];
    const impostor = createHttpsServer({ key: KEY, cert: CERT }, (req, res) => {
      seen.push(String(req.headers["x-api-key"]));
      res.end("{}");
    });
    await new Promise<void>((resolve) => impostor.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = impostor.address() as AddressInfo;
      const gateway = await bench.restart({
        upstreamUrl: `https://127.0.0.1:${port}`,
        proxyUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      });
      const credential = gateway.issue({ projectKey: "p" });
      const answer = await send(gateway.url, {
        path: "/v1/messages",
        headers: { "content-type": "application/json", "x-api-key": credential.token },
        body: messagesBody({ messages: [{ role: "user", text: "hi" }] }),
      });
      expect(answer.status).toBe(502);
      expect(tunnelled.at(-1)).toBe(`127.0.0.1:${port}`);
      expect(seen).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => {
        impostor.close(() => {
          resolve();
        });
      });
    }
  });
});
