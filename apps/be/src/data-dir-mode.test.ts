import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./test-support/harness.ts";

// Issue 49, finding 6: 968 of the 1,098 files of the embedded database were writable by any
// local user. The harness copies a migrated database cluster into the data directory before
// the service starts (as an earlier start under a loose umask would have left it); the service
// makes the directory 0700 and takes every group and other bit off what is inside.
let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

async function looseEntries(dir: string): Promise<string[]> {
  const loose: string[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    const info = await lstat(join(dir, entry));
    if (!info.isSymbolicLink() && (info.mode & 0o077) !== 0) loose.push(entry);
  }
  return loose;
}

describe("the data directory (issue 49, finding 6)", () => {
  it("is 0700 and nothing in it is readable or writable by others", async () => {
    expect((await lstat(harness.dataDir)).mode & 0o777).toBe(0o700);
    const files = await readdir(join(harness.dataDir, "pglite"), { recursive: true });
    expect(files.length).toBeGreaterThan(500);
    expect(await looseEntries(harness.dataDir)).toEqual([]);
  });
});
