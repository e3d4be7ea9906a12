import { createServer, type Server } from "node:net";
import { once } from "node:events";
import { afterEach, describe, expect, test } from "vitest";
import { PortsError } from "./errors.ts";
import { probePort, probePorts } from "./probe.ts";
import { ephemeralPort, startListener, type Listener } from "./test-support/processes.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function listenHere(host: string, port = 0): Promise<{ server: Server; port: number }> {
  const server = createServer();
  server.listen({ port, host, exclusive: true });
  await once(server, "listening");
  cleanups.push(async () => {
    server.close();
    await once(server, "close");
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no address");
  return { server, port: address.port };
}

async function listenInChild(port: number, host: string): Promise<Listener> {
  const listener = await startListener(port, host);
  cleanups.push(listener.stop);
  return listener;
}

describe("probePort against real sockets on loopback", () => {
  test("a port this process listens on is busy, held by this process", async () => {
    const { port } = await listenHere("127.0.0.1");
    const probe = await probePort(port);
    expect(probe).toMatchObject({ port, state: "busy", holder: { pid: process.pid } });
    if (probe.state === "busy") expect(probe.holder?.command).toMatch(/node/);
  });

  test("a port another process listens on is busy, with that process's pid and executable name only", async () => {
    const port = await ephemeralPort();
    const listener = await listenInChild(port, "127.0.0.1");
    const probe = await probePort(port);
    expect(probe).toMatchObject({ port, state: "busy", holder: { pid: listener.pid } });
    // The arguments (here the script path) never appear: they can carry secrets.
    if (probe.state === "busy") {
      expect(probe.holder?.command).toBe("node");
      expect(probe.holder?.command).not.toContain("listen.ts");
    }
  });

  test("a listener on IPv6 loopback only still makes the port busy (seen in the socket table)", async () => {
    const port = await ephemeralPort();
    const listener = await listenInChild(port, "::1");
    expect(await probePort(port)).toMatchObject({
      port,
      state: "busy",
      holder: { pid: listener.pid },
    });
  });

  test("a listener on any address makes the port busy: every IPv4 address, every address, another loopback address", async () => {
    for (const host of ["0.0.0.0", "::", "127.0.0.2"]) {
      const port = await ephemeralPort();
      const listener = await listenInChild(port, host);
      expect(await probePort(port)).toMatchObject({
        port,
        state: "busy",
        holder: { pid: listener.pid },
      });
    }
  });

  test("a free port is free, and probing leaves it free for the project's server", async () => {
    const port = await ephemeralPort();
    expect(await probePort(port)).toEqual({ port, state: "free" });
    // The probe's own test bind is gone: the port can be taken right away.
    const { port: taken } = await listenHere("127.0.0.1", port);
    expect(taken).toBe(port);
  });

  test("probing a busy port neither frees it nor disturbs its holder", async () => {
    const port = await ephemeralPort();
    const listener = await listenInChild(port, "127.0.0.1");
    await probePort(port);
    await probePort(port, { host: "127.0.0.1" });
    expect(listener.child.exitCode).toBeNull();
    expect((await probePort(port)).state).toBe("busy");
  });

  test("refuses something that is not a port", async () => {
    for (const port of [0, -1, 65536, 80.5, Number.NaN]) {
      await expect(probePort(port)).rejects.toThrow(PortsError);
      await expect(probePort(port)).rejects.toMatchObject({ code: "invalid_port" });
    }
  });
});

describe("probePorts: several ports from one look at the socket tables", () => {
  test("answers each port in the order given, as probePort would", async () => {
    const free = await ephemeralPort();
    const { port: busyHere } = await listenHere("127.0.0.1");
    const v6 = await ephemeralPort();
    const listener = await listenInChild(v6, "::1");
    expect(await probePorts([free, busyHere, v6])).toEqual([
      { port: free, state: "free" },
      await probePort(busyHere),
      await probePort(v6),
    ]);
    expect((await probePorts([v6]))[0]).toMatchObject({ holder: { pid: listener.pid } });
  });

  test("a port named twice is probed once (its two bind tests would collide) and answered twice", async () => {
    const port = await ephemeralPort();
    expect(await probePorts([port, port])).toEqual([
      { port, state: "free" },
      { port, state: "free" },
    ]);
  });

  test("refuses the whole call when any entry is not a port, before probing anything", async () => {
    const port = await ephemeralPort();
    await expect(probePorts([port, 70000])).rejects.toMatchObject({ code: "invalid_port" });
    expect(await probePorts([])).toEqual([]);
  });
});
