import { accessSync, chmodSync, constants, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Where a test run keeps its temporary files (`TMPDIR`, which `os.tmpdir()` reads in the test
 * workers and every process they start). The suites create and delete a great many of them:
 * each embedded database a service opens is a copied cluster of about a thousand files, plus
 * workspaces, session stores and logs. On this machine's root file system (ext4, on a virtual disk),
 * creating a file measured 0.03 to 1.2 ms of kernel time, the more after large deletes; on a
 * RAM file system 0.01 ms.
 *
 * Chosen, in order: `TALKIDE_TEST_TMPDIR` when set; else a directory of the user's own under
 * `/dev/shm` when that is a tmpfs that allows executing files (the fake `claude` and the
 * `ticlawk` wrappers run from temporary directories); else `TMPDIR` stays as it is. The
 * directory is kept between runs, so the database templates made once are reused; tests
 * remove what they create. The one under `/dev/shm` is traversable by others (0755): run as
 * root, the throwaway PostgreSQL server runs as the `postgres` user and keeps its cluster there.
 */
export function testTempRoot(env: NodeJS.ProcessEnv = process.env): string | null {
  const chosen = env["TALKIDE_TEST_TMPDIR"];
  if (chosen !== undefined && chosen !== "") return ensureDir(chosen);
  if (!isExecutableTmpfs(readMounts(), "/dev/shm")) return null;
  const uid = process.getuid?.() ?? "user";
  try {
    const dir = ensureDir(join("/dev/shm", `talkide-test-${uid}`));
    chmodSync(dir, 0o755); // whatever the umask
    return dir;
  } catch {
    return null; // not writable here: keep the default
  }
}

function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
  accessSync(dir, constants.W_OK | constants.X_OK);
  return dir;
}

export function readMounts(): string {
  try {
    return readFileSync("/proc/mounts", "utf8");
  } catch {
    return ""; // not Linux: no RAM file system is assumed
  }
}

/** Whether a mount point is a tmpfs without `noexec`, in the format of /proc/mounts. */
export function isExecutableTmpfs(mounts: string, mountPoint: string): boolean {
  // The last entry for a mount point is the one in effect.
  const entry = mounts
    .split("\n")
    .map((line) => line.split(" "))
    .findLast((fields) => fields[1] === mountPoint);
  if (entry === undefined || entry[2] !== "tmpfs") return false;
  return !(entry[3] ?? "").split(",").includes("noexec");
}
