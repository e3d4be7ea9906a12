import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fc, test } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "../test-support/harness.ts";
import { writeTurnEnvFile } from "./turn-env-file.ts";

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(async () => {
  await removeDir(dir);
});

/** What a POSIX shell sees after sourcing the file, as `ticlawk`'s wrapper does. */
function sourced(file: string, name: string): string {
  return execFileSync("/bin/sh", ["-c", `. "$1"; printf '%s' "$${name}"`, "sh", file], {
    encoding: "utf8",
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
  });
}

describe("writeTurnEnvFile", () => {
  test.prop([fc.string({ unit: "binary" }).filter((v) => !v.includes("\0"))], { numRuns: 60 })(
    "gives a shell that sources it each value exactly, whatever its bytes",
    async (value) => {
      const file = join(dir, "turn.sh");
      await writeTurnEnvFile(file, { TICLAWK_MESSAGE_ID: value, TICLAWK_TARGET: "dm:@anna" });
      expect(sourced(file, "TICLAWK_MESSAGE_ID")).toBe(value);
      expect(sourced(file, "TICLAWK_TARGET")).toBe("dm:@anna");
    },
  );

  it("is readable by the daemon's user only, and refuses names a shell would misread", async () => {
    const file = join(dir, "private.sh");
    await writeTurnEnvFile(file, { TICLAWK_TOKEN: "tkt_secret" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await expect(writeTurnEnvFile(file, { "A;rm -rf /": "x" })).rejects.toThrow(/variable name/);
    expect(readFileSync(file, "utf8")).toContain("TICLAWK_TOKEN='tkt_secret'");
  });
});
