import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./database.ts";
import {
  type PostgresServer,
  postgresBinariesAvailable,
  skipOrFailInCi,
  startPostgresServer,
} from "./server.ts";

const available =
  postgresBinariesAvailable() ||
  skipOrFailInCi(
    "test-postgres needs the PostgreSQL server binaries (initdb, pg_ctl); install them " +
      "(Debian: apt-get install -y postgresql; .ci/run does this).",
  );

describe.skipIf(!available)("startPostgresServer", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it("serves a real PostgreSQL on loopback and hands out isolated databases", async () => {
    expect(new URL(server.url).hostname).toBe("127.0.0.1");
    const first = await createTestDatabase(server.url);
    const second = await createTestDatabase(server.url);
    expect(first.url).not.toBe(second.url);
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    try {
      const result = await client.query<{ version: string }>("select version() as version");
      expect(result.rows[0]?.version).toMatch(/^PostgreSQL \d+/);
      await client.query("create table t (id int primary key)");
    } finally {
      await client.end();
    }
    const other = new pg.Client({ connectionString: second.url });
    await other.connect();
    try {
      const tables = await other.query("select 1 from pg_tables where tablename = 't'");
      expect(tables.rowCount).toBe(0);
    } finally {
      await other.end();
    }
    await first.drop();
    await second.drop();
  });
});

/** Generous: on a loaded machine the watchdog's 1 s poll plus pg_ctl stop take a few seconds. */
const CLEANUP_BOUND = { timeout: 30_000, interval: 250 };

interface Started {
  readonly url: string;
  readonly root: string;
  readonly watchdogPid: number | undefined;
}

/** A process that starts a guarded server for itself, prints it, then waits forever. */
const OWNER_SCRIPT = `
const { startPostgresServer } = await import(process.argv[1]);
const server = await startPostgresServer({ stopWhenProcessExits: process.pid });
process.stdout.write(JSON.stringify({ url: server.url, root: server.root, watchdogPid: server.watchdogPid }) + "\\n");
setInterval(() => {}, 1 << 30);
`;

function startOwner(): { child: ChildProcess; started: Promise<Started> } {
  const child = spawn(
    process.execPath,
    [
      "--conditions=@talkide/source",
      "--input-type=module",
      "-e",
      OWNER_SCRIPT,
      new URL("./server.ts", import.meta.url).href,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const started = new Promise<Started>((resolve, reject) => {
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      const end = out.indexOf("\n");
      if (end >= 0) resolve(JSON.parse(out.slice(0, end)) as Started);
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      reject(new Error(`the owner process ended (${signal ?? code}) before starting its server`));
    });
  });
  return { child, started };
}

async function acceptsConnections(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  // A refused connection also emits "error" on the client: keep it from being unhandled.
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

function pidOf(watchdogPid: number | undefined): number {
  if (watchdogPid === undefined) throw new Error("the server was started without a watchdog");
  return watchdogPid;
}

/** Whether a process runs; a zombie (ended, not yet reaped by its new parent) does not. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true; // no /proc here: trust kill -0
  }
}

async function serverGone(started: Started): Promise<boolean> {
  return !existsSync(started.root) && !(await acceptsConnections(started.url));
}

describe.skipIf(!available)("startPostgresServer({ stopWhenProcessExits })", () => {
  const children: ChildProcess[] = [];
  const leftovers: Started[] = [];
  const servers: PostgresServer[] = [];

  // Only matters when a test failed: leave no server, watchdog or owner behind.
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    for (const server of servers.splice(0)) await server.stop();
    // A root still there means the watchdog did not do its job: then end it and the server.
    for (const started of leftovers.splice(0).filter(({ root }) => existsSync(root))) {
      if (started.watchdogPid !== undefined && running(started.watchdogPid)) {
        process.kill(started.watchdogPid, "SIGKILL");
      }
      const pidFile = join(started.root, "data", "postmaster.pid");
      if (existsSync(pidFile)) {
        // SIGQUIT is PostgreSQL's immediate shutdown.
        process.kill(Number(readFileSync(pidFile, "utf8").split("\n")[0]), "SIGQUIT");
      }
      rmSync(started.root, { recursive: true, force: true });
    }
  });

  /** A server stopped when `owner` is gone, and after the test whatever happened. */
  async function guardedServer(owner: number): Promise<PostgresServer> {
    const server = await startPostgresServer({ stopWhenProcessExits: owner });
    servers.push(server);
    leftovers.push(server);
    return server;
  }

  it.each(["SIGTERM", "SIGKILL"] as const)(
    "stops the server and removes its directory once the owner is killed with %s",
    async (signal) => {
      const { child, started: starting } = startOwner();
      children.push(child);
      const started = await starting;
      leftovers.push(started);
      expect(await acceptsConnections(started.url)).toBe(true);
      const watchdogPid = pidOf(started.watchdogPid);

      const ended = new Promise((resolve) => child.once("exit", resolve));
      child.kill(signal);
      await ended;

      await expect.poll(() => serverGone(started), CLEANUP_BOUND).toBe(true);
      await expect.poll(() => running(watchdogPid), CLEANUP_BOUND).toBe(false);
    },
  );

  it("leaves no watchdog behind after a normal stop()", async () => {
    const server = await guardedServer(process.pid);
    const watchdogPid = pidOf(server.watchdogPid);
    expect(running(watchdogPid)).toBe(true);

    await server.stop();

    expect(await serverGone(server)).toBe(true);
    await expect.poll(() => running(watchdogPid), CLEANUP_BOUND).toBe(false);
  });

  it("stop() is harmless once the watchdog has stopped the server", async () => {
    // An owner to outlive: a process of our own, ended by the test.
    const owner = spawn("sleep", ["600"], { stdio: "ignore" });
    children.push(owner);
    if (owner.pid === undefined) throw new Error("could not start `sleep`");
    const server = await guardedServer(owner.pid);

    owner.kill("SIGKILL");
    await expect.poll(() => serverGone(server), CLEANUP_BOUND).toBe(true);

    await expect(server.stop()).resolves.toBeUndefined();
  });
});
