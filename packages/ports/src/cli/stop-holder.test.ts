import { createServer } from "node:net";
import { once } from "node:events";
import { describe, expect, test } from "vitest";
import type { PortProbe } from "../probe.ts";
import type { ProjectYml } from "../project-yml-parse.ts";
import { parseProjectYml } from "../project-yml-parse.ts";
import { renderProjectYml } from "../project-yml-render.ts";
import type { PortListeners } from "../socket-table.ts";
import { freeProjectId } from "../test-support/processes.ts";
import { refusePort, stopPortHolder, type StopDependencies } from "./stop-holder.ts";

const project7 = parseProjectYml(renderProjectYml(7));

/** A file value that parsing would never produce: the guard must stand on its own. */
function forged(be: number, fe: number): ProjectYml {
  return { ...project7, ports: { be, fe } };
}

/** Dependencies that record every signal and fail the test if asked anything unexpected. */
function fakeWorld(overrides: Partial<StopDependencies>): StopDependencies & { signals: string[] } {
  const signals: string[] = [];
  return {
    probe: () => Promise.reject(new Error("probe must not be called")),
    inspect: () => Promise.reject(new Error("inspect must not be called")),
    signal: (pid, signal) => signals.push(`${signal} ${pid}`),
    sleep: () => Promise.resolve(),
    now: () => 0,
    protectedPids: new Set([1]),
    ...overrides,
    signals,
  };
}

const busy = (port: number): Promise<PortProbe> =>
  Promise.resolve({ port, state: "busy", holder: null });

describe("refusePort", () => {
  test("allows exactly the two ports the file names", () => {
    expect(refusePort(8097, project7)).toBeNull();
    expect(refusePort(5207, project7)).toBeNull();
  });

  test("refuses the platform's ports even if a (forged) file named them", () => {
    expect(refusePort(9090, forged(9090, 5207))).toMatchObject({ reason: "platform_port" });
    expect(refusePort(5200, forged(8097, 5200))).toMatchObject({ reason: "platform_port" });
  });

  test("refuses any port the file does not name", () => {
    for (const port of [8098, 5208, 22, 80, 3000, 8096]) {
      expect(refusePort(port, project7)).toMatchObject({ reason: "port_not_in_file" });
    }
  });
});

describe("stopPortHolder refusals", () => {
  test("a forged platform port is refused before anything is probed or signalled", async () => {
    const world = fakeWorld({});
    const result = await stopPortHolder(forged(9090, 5207), "be", {
      graceMs: 0,
      dependencies: world,
    });
    expect(result).toMatchObject({ result: "refused", reason: "platform_port", port: 9090 });
    expect(world.signals).toEqual([]);
  });

  test("a busy port whose holder cannot be seen is refused, nothing is signalled", async () => {
    const world = fakeWorld({
      probe: busy,
      inspect: (): Promise<PortListeners> =>
        Promise.resolve({ tablesReadable: true, listening: true, holders: [] }),
    });
    const result = await stopPortHolder(project7, "be", { graceMs: 0, dependencies: world });
    expect(result).toMatchObject({ result: "refused", reason: "holder_unknown", port: 8097 });
    expect(world.signals).toEqual([]);
  });

  test("without socket tables (not Linux) a busy port is refused the same way", async () => {
    const world = fakeWorld({
      probe: busy,
      inspect: (): Promise<PortListeners> =>
        Promise.resolve({ tablesReadable: false, listening: false, holders: [] }),
    });
    const result = await stopPortHolder(project7, "fe", { graceMs: 0, dependencies: world });
    expect(result).toMatchObject({ result: "refused", reason: "holder_unknown", port: 5207 });
    expect(world.signals).toEqual([]);
  });

  test("a holder the OS does not let us signal is a failure, reported with its pid", async () => {
    const world = fakeWorld({
      probe: busy,
      inspect: (): Promise<PortListeners> =>
        Promise.resolve({
          tablesReadable: true,
          listening: true,
          holders: [{ pid: 4242, command: "java -jar app.jar" }],
        }),
      signal: () => {
        throw Object.assign(new Error("kill EPERM"), { code: "EPERM" });
      },
    });
    const result = await stopPortHolder(project7, "be", { graceMs: 0, dependencies: world });
    expect(result).toMatchObject({ result: "failed", reason: "signal_denied" });
    if (result.result === "failed") expect(result.message).toContain("pid 4242");
  });

  test("a port taken over by another process after SIGTERM: no SIGKILL for anyone, reported as still busy", async () => {
    const original = { pid: 4242, command: "node server.js" };
    const newcomer = { pid: 5353, command: "node server.js" };
    let terminated = false;
    const world = fakeWorld({
      probe: (port) =>
        Promise.resolve({ port, state: "busy", holder: terminated ? newcomer : original }),
      inspect: (): Promise<PortListeners> =>
        Promise.resolve({
          tablesReadable: true,
          listening: true,
          holders: [terminated ? newcomer : original],
        }),
      signal: (pid, signal) => {
        world.signals.push(`${signal} ${pid}`);
        terminated = true;
      },
    });
    const result = await stopPortHolder(project7, "be", { graceMs: 1000, dependencies: world });
    expect(world.signals).toEqual(["SIGTERM 4242"]);
    expect(result).toMatchObject({ result: "failed", reason: "still_busy" });
    if (result.result === "failed") expect(result.message).toContain("pid 5353");
  });

  test("a holder that outlives the grace period is re-checked, then gets SIGKILL", async () => {
    const holder = { pid: 4242, command: "java -jar app.jar" };
    let clock = 0;
    let killed = false;
    const world = fakeWorld({
      probe: (port) =>
        Promise.resolve(killed ? { port, state: "free" } : { port, state: "busy", holder }),
      inspect: (): Promise<PortListeners> =>
        Promise.resolve({
          tablesReadable: true,
          listening: !killed,
          holders: killed ? [] : [holder],
        }),
      signal: (pid, signal) => {
        world.signals.push(`${signal} ${pid}`);
        if (signal === "SIGKILL") killed = true;
      },
      sleep: (ms) => {
        clock += ms;
        return Promise.resolve();
      },
      now: () => clock,
    });
    const result = await stopPortHolder(project7, "be", { graceMs: 500, dependencies: world });
    expect(world.signals).toEqual(["SIGTERM 4242", "SIGKILL 4242"]);
    expect(clock).toBeGreaterThanOrEqual(500);
    expect(result).toMatchObject({ result: "stopped", signal: "SIGKILL" });
  });

  test("a real listener held by this very process is refused as protected, and keeps running", async () => {
    const id = await freeProjectId();
    const file = parseProjectYml(renderProjectYml(id));
    const server = createServer();
    server.listen({ port: file.ports.fe, host: "127.0.0.1", exclusive: true });
    await once(server, "listening");
    try {
      const result = await stopPortHolder(file, "fe", { graceMs: 0 });
      expect(result).toMatchObject({
        result: "refused",
        reason: "protected_process",
        holders: [{ pid: process.pid }],
      });
      expect(server.listening).toBe(true);
    } finally {
      server.close();
      await once(server, "close");
    }
  });
});
