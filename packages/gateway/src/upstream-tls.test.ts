import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messagesBody, PROVIDER_KEY, send, startBench, type Bench } from "./test-support/bench.ts";
import { CERT, KEY } from "./test-support/impostor.ts";

/**
 * The provider's key goes only to a provider whose certificate checks out: an impostor on the
 * upstream's address (here one whose certificate nobody vouches for) gets the TLS handshake
 * and nothing else. (@fastify/reply-from would skip the check by default.)
 */
describe("the gateway's connection to the provider", () => {
  const seen: string[] = [];
  const impostor = createServer({ key: KEY, cert: CERT }, (req, res) => {
    seen.push(String(req.headers["x-api-key"]));
    res.end("{}");
  });
  let bench: Bench;
  beforeAll(async () => {
    await new Promise<void>((resolve) => impostor.listen(0, "127.0.0.1", resolve));
    const { port } = impostor.address() as AddressInfo;
    bench = await startBench({ gateway: { upstreamUrl: `https://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await bench.close();
    await new Promise<void>((resolve) => {
      impostor.close(() => {
        resolve();
      });
    });
  });

  it("refuses a certificate nobody vouches for: 502, and the key never leaves", async () => {
    const credential = bench.gateway.issue({ projectKey: "p" });
    const answer = await send(bench.gateway.url, {
      path: "/v1/messages",
      headers: { "content-type": "application/json", "x-api-key": credential.token },
      body: messagesBody({ messages: [{ role: "user", text: "hi" }] }),
    });
    expect(answer.status).toBe(502);
    expect(seen).toEqual([]);
    expect(answer.body.toString("latin1")).not.toContain(PROVIDER_KEY);
  });
});
