import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN_FILE,
  loadOrCreateAdminToken,
  lockDataDir,
  makeDataDirPrivate,
} from "./data-dir.ts";

const dirs: string[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "service-kit-"));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("lockDataDir", () => {
  it("refuses a second holder with the caller's service name and variable", async () => {
    const dir = await freshDir();
    const release = await lockDataDir(dir, {
      service: "hub",
      dataDirVariable: "TALKIDE_HUB_DATA_DIR",
    });
    const second = lockDataDir(dir, { service: "hub", dataDirVariable: "TALKIDE_HUB_DATA_DIR" });
    await expect(second).rejects.toMatchObject({
      code: "data_dir_in_use",
      message: `Another hub (pid ${String(process.pid)}) is using ${dir}. Stop it, or give this one its own TALKIDE_HUB_DATA_DIR.`,
    });
    await release();
    const again = await lockDataDir(dir, { service: "daemon", dataDirVariable: "X" });
    await again();
  });

  it("takes over a lock left by a process that no longer runs", async () => {
    const dir = await freshDir();
    const release = await lockDataDir(dir, { service: "daemon", dataDirVariable: "X" });
    await release();
    // A pid that cannot be alive: the lock file of a killed process.
    await writeFile(join(dir, "daemon.lock"), "2147483646\n");
    const taken = await lockDataDir(dir, { service: "daemon", dataDirVariable: "X" });
    expect((await readFile(join(dir, "daemon.lock"), "utf8")).trim()).toBe(String(process.pid));
    await taken();
  });
});

describe("loadOrCreateAdminToken", () => {
  it("creates the token once, readable by the owner only, and reads it back", async () => {
    const dir = await freshDir();
    const first = await loadOrCreateAdminToken(dir, () => "tok-1");
    const second = await loadOrCreateAdminToken(dir, () => "tok-2");
    expect([first, second]).toEqual(["tok-1", "tok-1"]);
    expect((await stat(join(dir, ADMIN_TOKEN_FILE))).mode & 0o777).toBe(0o600);
  });
});

describe("makeDataDirPrivate", () => {
  it("creates the directory 0700 and later files 0600 whatever the umask was", async () => {
    const before = process.umask(0o000);
    try {
      const dir = join(await freshDir(), "data");
      await makeDataDirPrivate(dir);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      const now = process.umask(0o077);
      expect(now).toBe(0o077);
      await writeFile(join(dir, "later"), "x");
      await mkdir(join(dir, "sub"));
      expect((await stat(join(dir, "later"))).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, "sub"))).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(before);
    }
  });

  it("takes group and other bits off what an earlier start left, without following links", async () => {
    const before = process.umask(0o000);
    try {
      const dir = await freshDir();
      const outside = await freshDir();
      await chmod(dir, 0o777);
      await mkdir(join(dir, "pglite", "base"), { recursive: true, mode: 0o777 });
      await writeFile(join(dir, "pglite", "base", "1"), "x", { mode: 0o666 });
      await writeFile(join(dir, "already"), "x", { mode: 0o600 });
      await writeFile(join(outside, "target"), "x", { mode: 0o644 });
      await symlink(join(outside, "target"), join(dir, "link"));
      expect(await makeDataDirPrivate(dir)).toBe(4);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, "pglite"))).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, "pglite", "base"))).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, "pglite", "base", "1"))).mode & 0o777).toBe(0o600);
      expect((await stat(join(outside, "target"))).mode & 0o777).toBe(0o644);
    } finally {
      process.umask(before);
    }
  });

  it("is what lockDataDir does first", async () => {
    const before = process.umask(0o000);
    try {
      const dir = join(await freshDir(), "daemon");
      const release = await lockDataDir(dir, { service: "daemon", dataDirVariable: "X" });
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, "daemon.lock"))).mode & 0o777).toBe(0o600);
      await release();
    } finally {
      process.umask(before);
    }
  });
});
