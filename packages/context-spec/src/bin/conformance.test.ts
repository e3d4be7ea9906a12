// The talkide-conformance bin as a user runs it: exit codes, JSON lines, human report.

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { FAKE_IMPLEMENTATION, makeShoutPackage } from "../test-support/shout-package.ts";

const BIN = fileURLToPath(new URL("./conformance.ts", import.meta.url));
const root = makeShoutPackage();
/** The fake implementation appends the pid of every process it runs as. */
const pidLog = path.join(root, "pids.log");
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

async function conformance(
  ...args: string[]
): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }> {
  const result = await execa(
    process.execPath,
    ["--conditions=@talkide/source", BIN, "--root", root, ...args],
    { reject: false, env: { FAKE_PID_LOG: pidLog } },
  );
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

describe("talkide-conformance", () => {
  it("exits 0 and prints one JSON object per case with --json", async () => {
    const result = await conformance(
      "--suite",
      "all",
      "--json",
      "--",
      process.execPath,
      FAKE_IMPLEMENTATION,
      "correct",
      "{output}",
    );
    expect(result.exitCode).toBe(0);
    const lines = result.stdout
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => [line["suite"], line["id"], line["status"]])).toEqual([
      ["shout", "bad-word", "pass"],
      ["shout", "hello", "pass"],
      ["shout", "white-space", "pass"],
      ["shout-pair", "two-lines", "pass"],
    ]);
    for (const line of lines) {
      expect(line["wantSha256"]).toMatch(/^[0-9a-f]{64}$/u);
      expect(line["gotSha256"]).toBe(line["wantSha256"]);
    }
    expect(result.stderr).toContain("PASS: 4 cases");
  });

  it("exits 1 on wrong bytes and shows a visible diff", async () => {
    const result = await conformance(
      "--suite",
      "shout",
      "--",
      process.execPath,
      FAKE_IMPLEMENTATION,
      "wrong-bytes",
    );
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("FAIL     shout/hello — wrong bytes");
    expect(result.stdout).toContain("+HELLO·⏎");
    expect(result.stdout).toContain("FAIL: 3 cases, 1 passed, 2 failed");
  });

  it("exits 0 when the only failures are known, 1 when a known failure passes", async () => {
    const list = path.join(root, "known-failures.txt");
    writeFileSync(
      list,
      "# wrong-bytes breaks every rendered case\nshout/hello\nshout/white-space  # trailing space\n",
    );
    const known = await conformance(
      "--suite",
      "shout",
      "--known-failures",
      list,
      "--",
      process.execPath,
      FAKE_IMPLEMENTATION,
      "wrong-bytes",
    );
    expect(known.exitCode).toBe(0);
    expect(known.stdout).toContain("known    shout/hello");
    const fixed = await conformance(
      "--suite",
      "shout",
      "--known-failures",
      list,
      "--json",
      "--",
      process.execPath,
      FAKE_IMPLEMENTATION,
      "correct",
    );
    expect(fixed.exitCode).toBe(1);
    expect(fixed.stdout).toContain('"unexpectedPass":true');
  });

  it("tells timeout from crash in --json", async () => {
    const result = await conformance(
      "--include",
      "bad-word",
      "--json",
      "--timeout",
      "60000",
      "--",
      process.execPath,
      FAKE_IMPLEMENTATION,
      "crash",
    );
    expect(result.exitCode).toBe(1);
    const line = JSON.parse(result.stdout) as {
      status: string;
      outputs: { exitCode: number; stderr: string }[];
    };
    expect(line.status).toBe("error");
    expect(line.outputs[0]?.exitCode).toBe(1);
    expect(line.outputs[0]?.stderr).toContain("crashed on purpose");
  });

  it("offers a session by default and starts a process per case with --per-case", async () => {
    const processes = async (...options: string[]): Promise<number> => {
      writeFileSync(pidLog, "");
      const run = await conformance(
        "--suite",
        "shout",
        "--jobs",
        "1",
        ...options,
        "--",
        process.execPath,
        FAKE_IMPLEMENTATION,
        "correct",
      );
      expect(run.exitCode, run.stdout).toBe(0);
      return new Set(readFileSync(pidLog, "utf8").split("\n").filter(Boolean)).size;
    };
    expect(await processes()).toBe(1);
    expect(await processes("--per-case")).toBe(3);
  });

  it("exits 2 when the run cannot be set up", async () => {
    expect(
      (await conformance("--suite", "no-such-suite", "--", process.execPath, FAKE_IMPLEMENTATION))
        .exitCode,
    ).toBe(2);
    expect(
      (await conformance("--timeout", "soon", "--", process.execPath, FAKE_IMPLEMENTATION))
        .exitCode,
    ).toBe(2);
    expect(
      (
        await conformance(
          "--known-failures",
          path.join(root, "missing.txt"),
          "--",
          process.execPath,
        )
      ).exitCode,
    ).toBe(2);
    const unnamed = await conformance(
      "--result",
      path.join(root, "result.json"),
      "--",
      process.execPath,
      FAKE_IMPLEMENTATION,
    );
    expect(unnamed.exitCode).toBe(2);
    expect(unnamed.stderr).toContain("--result needs --implementation <name>.");
  });
});
