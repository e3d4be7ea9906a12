import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startDetachedWatchdog } from "./detached-watchdog.ts";

const run = promisify(execFile);

export interface PostgresServer {
  /** Superuser connection URL on 127.0.0.1, database `postgres`. */
  readonly url: string;
  /** The temporary directory holding the cluster, its socket and log; `stop()` removes it. */
  readonly root: string;
  /** The watchdog's pid when started with `stopWhenProcessExits`, else undefined. */
  readonly watchdogPid: number | undefined;
  /** Stops the server and removes `root`; harmless when the server is already stopped. */
  stop(): Promise<void>;
}

export interface StartPostgresServerOptions {
  /**
   * Stop the server and remove its directory once the process with this pid is gone, however
   * it ended (SIGKILL included). Pass `process.pid` when nothing else is sure to call `stop()`:
   * vitest runs no global teardown when its main process is killed by a signal.
   */
  readonly stopWhenProcessExits?: number;
}

/** Where the server binaries live: PATH first, then Debian's versioned directories. */
export function findPostgresBinDir(): string | null {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  const debianRoot = "/usr/lib/postgresql";
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const dir = join(debianRoot, version, "bin");
      if (existsSync(join(dir, "initdb"))) return dir;
    }
  }
  return null;
}

export function postgresBinariesAvailable(): boolean {
  return findPostgresBinDir() !== null;
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("could not determine a free loopback port"));
      });
    });
  });
}

/**
 * PostgreSQL refuses to run as root. When the tests run as root (CI containers do), the
 * server runs as the unprivileged `postgres` account through `runuser`.
 */
function asServerUser(binary: string, args: readonly string[]): [string, string[]] {
  if (userInfo().uid !== 0) return [binary, [...args]];
  return ["runuser", ["-u", "postgres", "--", binary, ...args]];
}

async function chownForServerUser(dir: string): Promise<void> {
  if (userInfo().uid !== 0) return;
  const { stdout } = await run("id", ["-u", "postgres"]);
  const { stdout: gid } = await run("id", ["-g", "postgres"]);
  chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
}

/**
 * The watchdog behind `stopWhenProcessExits`, a POSIX sh loop (no Node start-up, a `sleep`
 * a second while idle). Arguments: the owner's pid, the server's postmaster.pid, the root
 * directory, then the `pg_ctl stop` command. It ends on its own once postmaster.pid is gone (the
 * server was stopped normally), so a normal run leaves none behind. It ignores HUP, INT and TERM:
 * a Ctrl-C or `concurrently`'s tree-kill reaches every descendant of vitest, this one too, and it
 * must outlive its owner to clean up. A pid reused after the owner ended only delays the cleanup.
 */
const WATCHDOG_SCRIPT = `
trap '' HUP INT TERM
owner=$1 pidfile=$2 root=$3
shift 3
while kill -0 "$owner" 2>/dev/null; do
  [ -f "$pidfile" ] || exit 0
  sleep 1
done
if [ -f "$pidfile" ]; then "$@"; fi
rm -rf "$root"
`;

/** Starts the server's watchdog (see startDetachedWatchdog). Returns its pid. */
function startWatchdog(
  owner: number,
  dataDir: string,
  root: string,
  stopCommand: readonly string[],
): number {
  return startDetachedWatchdog("talkide-pg-watchdog", WATCHDOG_SCRIPT, [
    String(owner),
    join(dataDir, "postmaster.pid"),
    root,
    ...stopCommand,
  ]);
}

/**
 * Starts a throwaway server: a fresh cluster in a temporary directory, trust
 * authentication, listening on a free port on 127.0.0.1 only, fsync off (test data).
 */
export async function startPostgresServer(
  options: StartPostgresServerOptions = {},
): Promise<PostgresServer> {
  const owner = options.stopWhenProcessExits;
  if (owner !== undefined && !(Number.isSafeInteger(owner) && owner > 0)) {
    throw new Error(
      `stopWhenProcessExits must be the pid of a running process (a positive integer, such as ` +
        `process.pid), not ${String(owner)}.`,
    );
  }
  const binDir = findPostgresBinDir();
  if (!binDir) {
    throw new Error(
      "No PostgreSQL server binaries (initdb, pg_ctl) found on PATH or under /usr/lib/postgresql. " +
        "Install them (Debian: apt-get install postgresql) or set TALKIDE_TEST_PG_URL.",
    );
  }
  const root = mkdtempSync(join(tmpdir(), "talkide-pg-"));
  chmodSync(root, 0o755);
  await chownForServerUser(root);
  const dataDir = join(root, "data");
  const port = await freeLoopbackPort();

  const initdb = asServerUser(join(binDir, "initdb"), [
    "-D",
    dataDir,
    "-U",
    "postgres",
    "--auth=trust",
    "--encoding=UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  await run(initdb[0], initdb[1]);

  // One server serves the whole test run (see global-setup.ts), with suites running side by
  // side, each with its own pools: room for more than the default 100 connections.
  const serverOptions = `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400`;
  const start = asServerUser(join(binDir, "pg_ctl"), [
    "-D",
    dataDir,
    "-o",
    serverOptions,
    "-l",
    join(root, "server.log"),
    "-w",
    "start",
  ]);
  await run(start[0], start[1]);

  const stopCommand = asServerUser(join(binDir, "pg_ctl"), [
    "-D",
    dataDir,
    "-m",
    "immediate",
    "-w",
    "stop",
  ]);
  const postmasterPid = join(dataDir, "postmaster.pid");
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      // The server is gone when postmaster.pid is (the watchdog may have stopped it already,
      // or be stopping it this very moment): pg_ctl's error then means nothing.
      if (existsSync(postmasterPid)) {
        await run(stopCommand[0], stopCommand[1]).catch((error: unknown) => {
          if (existsSync(postmasterPid)) throw error;
        });
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };

  let watchdogPid: number | undefined;
  if (owner !== undefined) {
    try {
      watchdogPid = startWatchdog(owner, dataDir, root, stopCommand.flat());
    } catch (error) {
      await stop();
      throw new Error(
        `Could not start the watchdog that stops the test PostgreSQL server when process ` +
          `${owner} exits (it runs \`sh\`; is it on PATH?): ${String(error)}`,
        { cause: error },
      );
    }
  }

  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    root,
    watchdogPid,
    stop,
  };
}

/** Whether this is a CI run (`.ci/run` sets CI=true): there a suite that cannot run fails. */
function isCi(): boolean {
  const value = (process.env["CI"] ?? "").trim().toLowerCase();
  return value !== "" && value !== "false" && value !== "0";
}

/**
 * Whether a real-server suite can run here: `TALKIDE_TEST_PG_URL` is set or the server
 * binaries are installed. When neither holds, a local run skips the suite with a loud warning,
 * and a CI run throws (failing the suite) with what to install: a green CI must never hide a
 * suite that did not run.
 */
export function postgresSuiteCanRun(suite: string): boolean {
  const configured = process.env["TALKIDE_TEST_PG_URL"];
  if ((configured !== undefined && configured !== "") || postgresBinariesAvailable()) return true;
  return skipOrFailInCi(
    `${suite} needs a PostgreSQL server: no server binaries (initdb, pg_ctl) are installed and ` +
      "TALKIDE_TEST_PG_URL is not set. Install the server (Debian: apt-get install -y postgresql; " +
      ".ci/run does this) or set TALKIDE_TEST_PG_URL to a server's admin URL.",
  );
}

/** A suite that cannot run: false (skip, loudly) locally, an error under CI=true. */
export function skipOrFailInCi(missing: string): false {
  if (isCi()) throw new Error(`${missing} Under CI=true this suite fails instead of skipping.`);
  console.warn(`\n!!! SKIPPING: ${missing} !!!\n`);
  return false;
}
