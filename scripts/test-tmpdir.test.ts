import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isExecutableTmpfs, readMounts, testTempRoot } from "./test-tmpdir.ts";

describe("testTempRoot", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("uses TALKIDE_TEST_TMPDIR when set, creating it", () => {
    const parent = mkdtempSync(join(tmpdir(), "talkide-tmpdir-"));
    made.push(parent);
    const chosen = join(parent, "nested", "tmp");
    expect(testTempRoot({ TALKIDE_TEST_TMPDIR: chosen })).toBe(chosen);
    expect(statSync(chosen).isDirectory()).toBe(true);
  });

  it("otherwise a directory of the user's own under /dev/shm where that is an executable tmpfs, traversable by others", () => {
    const root = testTempRoot({});
    if (!isExecutableTmpfs(readMounts(), "/dev/shm")) {
      expect(root).toBeNull();
      return;
    }
    expect(root).toBe(`/dev/shm/talkide-test-${process.getuid?.() ?? "user"}`);
    expect(statSync(root ?? "").mode & 0o777).toBe(0o755);
  });
});

describe("isExecutableTmpfs", () => {
  const line = (options: string, type = "tmpfs") =>
    `${type} /dev/shm ${type} ${options} 0 0\nproc /proc proc rw 0 0\n`;

  it("accepts a tmpfs mounted without noexec", () => {
    expect(isExecutableTmpfs(line("rw,relatime,size=24683656k"), "/dev/shm")).toBe(true);
  });

  it("refuses noexec, another file system type, and a missing mount point", () => {
    expect(isExecutableTmpfs(line("rw,nosuid,nodev,noexec"), "/dev/shm")).toBe(false);
    expect(isExecutableTmpfs(line("rw", "ext4"), "/dev/shm")).toBe(false);
    expect(isExecutableTmpfs(line("rw"), "/run/shm")).toBe(false);
    expect(isExecutableTmpfs("", "/dev/shm")).toBe(false);
  });

  it("reads the entry in effect: the last one for the mount point", () => {
    expect(isExecutableTmpfs(line("rw") + line("rw,noexec"), "/dev/shm")).toBe(false);
    expect(isExecutableTmpfs(line("rw,noexec") + line("rw"), "/dev/shm")).toBe(true);
  });
});
