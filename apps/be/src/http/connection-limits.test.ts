import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness, type TestUser } from "../test-support/harness.ts";

// Issue 49, finding 5: idle connections from one address exhausted the server's file
// descriptors and another user's `GET /v1/me` failed. Now one address holds at most
// TALKIDE_HTTP_MAX_CONNECTIONS_PER_ADDRESS and a silent connection is closed with 408.
let harness: Harness;
let user: TestUser;
let port: number;
const sockets: Socket[] = [];

beforeAll(async () => {
  harness = await startHarness({
    env: {
      TALKIDE_HTTP_MAX_CONNECTIONS_PER_ADDRESS: "5",
      TALKIDE_HTTP_HEADERS_TIMEOUT_MS: "1500",
      TALKIDE_HTTP_REQUEST_TIMEOUT_MS: "3000",
    },
  });
  user = await harness.createUser({ email: "other@example.com", displayName: "Other" });
  port = Number(new URL(harness.url).port);
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await harness.close();
});

function idle(send = ""): { socket: Socket; closed: Promise<string>; open: Promise<void> } {
  const socket = connect({ host: "127.0.0.1", port, localAddress: "127.0.0.1" });
  sockets.push(socket);
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("utf8");
  });
  socket.on("error", () => undefined);
  const open = new Promise<void>((resolve) =>
    socket.once("connect", () => {
      if (send !== "") socket.write(send);
      resolve();
    }),
  );
  const closed = new Promise<string>((resolve) =>
    socket.on("close", () => {
      resolve(received);
    }),
  );
  return { socket, closed, open };
}

function me(from: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/v1/me",
        localAddress: from,
        agent: false,
        headers: { authorization: `Bearer ${user.token}` },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("slow and idle clients (issue 49, finding 5)", () => {
  it("one address's idle connections neither block another user nor stay open", async () => {
    const held = Array.from({ length: 5 }, () => idle());
    await Promise.all(held.map((client) => client.open));
    // Over the cap: closed at once, nothing answered.
    expect(await idle("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").closed).toBe("");
    // Another client address signs in as usual, every time (one request after another: it
    // has a cap of its own).
    const statuses: number[] = [];
    for (let i = 0; i < 20; i += 1) statuses.push(await me("127.0.0.2"));
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 200));
    // The silent connections are answered 408 and closed after the headers timeout.
    for (const text of await Promise.all(held.map((client) => client.closed))) {
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
    }
    expect(await me("127.0.0.1")).toBe(200);
  });

  it("a body that trickles is cut off at the request timeout", async () => {
    const slow = idle(
      "POST /v1/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `Authorization: Bearer ${user.token}\r\nContent-Length: 1000\r\n\r\n{"name":`,
    );
    expect(await slow.closed).toMatch(/^HTTP\/1\.1 408 /);
  });
});
