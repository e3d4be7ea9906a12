import { chmod, lstat, mkdir, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The data directory holds what belongs to one service process (the daemon, the hub): its
 * embedded database, the local admin token (file mode 0600: whoever can read it is this
 * machine's operator) and whatever else the service keeps there. A lock file keeps a second
 * process off the same directory: the embedded database must never be opened by two.
 */
export interface DataDirOwner {
  /** What the refusal calls the other process: "daemon", "hub". */
  readonly service: string;
  /** The variable that gives this one another directory: `TALKIDE_DAEMON_DATA_DIR`. */
  readonly dataDirVariable: string;
}

export class DataDirInUseError extends Error {
  readonly code = "data_dir_in_use";
  constructor(dataDir: string, pid: number, owner: DataDirOwner) {
    super(
      `Another ${owner.service} (pid ${pid}) is using ${dataDir}. Stop it, or give this one its own ${owner.dataDirVariable}.`,
    );
    this.name = "DataDirInUseError";
  }
}

/**
 * Makes the data directory private to the service's user before anything is written to it:
 * the process's umask becomes 077 (so every file the service, its embedded database or the
 * tools it runs create afterwards is 0600 and every directory 0700, whatever umask the shell
 * had), the directory is created 0700, and what an earlier start left readable or writable by
 * others (the embedded database's files, created under a loose umask) loses those bits.
 * Symbolic links are not followed. Returns how many entries were tightened.
 */
export async function makeDataDirPrivate(dataDir: string): Promise<number> {
  process.umask(0o077);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  return tighten(dataDir);
}

async function tighten(path: string): Promise<number> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return 0;
  let tightened = 0;
  if ((info.mode & 0o077) !== 0) {
    await chmod(path, info.mode & 0o700);
    tightened += 1;
  }
  if (info.isDirectory()) {
    for (const entry of await readdir(path)) tightened += await tighten(join(path, entry));
  }
  return tightened;
}

const heldInThisProcess = new Set<string>();

export async function lockDataDir(
  dataDir: string,
  owner: DataDirOwner,
): Promise<() => Promise<void>> {
  await makeDataDirPrivate(dataDir);
  // The name predates the hub's move out of the daemon; kept so that a hub and a daemon
  // written before it still see each other's lock.
  const lockPath = join(dataDir, "daemon.lock");
  if (heldInThisProcess.has(lockPath)) throw new DataDirInUseError(dataDir, process.pid, owner);
  for (let tries = 0; tries < 2; tries += 1) {
    try {
      const handle = await open(lockPath, "wx", 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      heldInThisProcess.add(lockPath);
      return async () => {
        heldInThisProcess.delete(lockPath);
        await rm(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number((await readFile(lockPath, "utf8").catch(() => "")).trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new DataDirInUseError(dataDir, holder, owner);
      }
      // Left behind by a process that was killed: take it over.
      await rm(lockPath, { force: true });
    }
  }
  throw new DataDirInUseError(dataDir, -1, owner);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export const ADMIN_TOKEN_FILE = "admin-token";

/** Reads the local admin token, creating it on first start. */
export async function loadOrCreateAdminToken(
  dataDir: string,
  generate: () => string,
): Promise<string> {
  const path = join(dataDir, ADMIN_TOKEN_FILE);
  const existing = (await readFile(path, "utf8").catch(() => "")).trim();
  if (existing !== "") return existing;
  const token = generate();
  await writeFile(path, `${token}\n`, { mode: 0o600 });
  return token;
}
