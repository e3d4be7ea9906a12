import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REAL_CLAUDE_VERSION } from "@talkide/claude-cli/testing";
import { NODE_FROM_SOURCE } from "@talkide/service-kit/testing";
import { DAEMON_BIN, startChildDaemon, type ChildDaemon } from "../test-support/child-daemon.ts";
import { makeDelivery, makeTempDir, removeDir } from "../test-support/harness.ts";

const exec = promisify(execFile);

let dir: string;
let daemon: ChildDaemon;

/** Runs the bin from source as a user would; never throws, returns code and output. */
async function cli(args: string[], env: Record<string, string> = {}) {
  return exec(process.execPath, [...NODE_FROM_SOURCE, DAEMON_BIN, ...args], {
    cwd: dir,
    env: { ...process.env, TALKIDE_DAEMON_DATA_DIR: dir, ...env },
    encoding: "utf8",
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (error: unknown) => {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    },
  );
}

beforeAll(async () => {
  dir = await makeTempDir();
  daemon = await startChildDaemon(dir);
});

afterAll(async () => {
  daemon.process.kill("SIGTERM");
  await daemon.exited;
  await removeDir(dir);
});

describe("talkide-daemon CLI", () => {
  it("registers an agent (workspace relative to the current directory), idempotently", async () => {
    const first = await cli([
      "agent",
      "register",
      "alice",
      "--workspace",
      "ws-alice",
      "--url",
      daemon.url,
    ]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toBe(
      `agent alice created (claude-code, workspace ${join(dir, "ws-alice")})\n`,
    );
    const again = await cli([
      "agent",
      "register",
      "alice",
      "--workspace",
      "ws-alice",
      "--url",
      daemon.url,
    ]);
    expect(again.stdout).toContain("agent alice unchanged");
    const list = await cli(["agent", "list", "--url", daemon.url]);
    expect(list.stdout).toBe(`alice\tclaude-code\t${join(dir, "ws-alice")}\n`);
  });

  it("creates an intake token that the message service can push deliveries with", async () => {
    const created = await cli([
      "token",
      "create",
      "--name",
      "message-service",
      "--url",
      daemon.url,
    ]);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^tkd_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/scope intake\) created; it is shown only this once/);
    const pushed = await daemon.api.call("POST", "/v1/agents/alice/deliveries", makeDelivery(), {
      token,
    });
    expect(pushed.status).toBe(202);
    const listed = await cli(["token", "list", "--url", daemon.url]);
    expect(listed.stdout).toMatch(/\tintake\tmessage-service\n/);
    expect(listed.stdout).toMatch(/\tadmin\tlocal-admin\n/);
    expect(listed.stdout).not.toContain(token);
  });

  it("shows status, as text and as JSON", async () => {
    const text = await cli(["status", "--url", daemon.url]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`^daemon +${daemon.url} \\(host child-host, database pglite\\)$`, "m"),
    );
    // The fake claude reports the pinned release.
    expect(text.stdout).toMatch(
      new RegExp(`^claude +\\S+ ${REAL_CLAUDE_VERSION.replaceAll(".", "\\.")}$`, "m"),
    );
    expect(text.stdout).toMatch(
      /^deliveries +\d+ waiting, \d+ running, \d+ completed, \d+ failed$/m,
    );
    expect(text.stdout).toMatch(/^agents +alice$/m);
    const json = JSON.parse(
      (await cli(["status", "--json", "--url", daemon.url])).stdout,
    ) as Record<string, unknown>;
    expect(json).toMatchObject({
      url: daemon.url,
      hostId: "child-host",
      database: "pglite",
      concurrency: 4,
    });
  });

  it("resets an agent", async () => {
    const reset = await cli(["agent", "reset", "alice", "--url", daemon.url]);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/^agent alice reset; \d+ session\(s\) invalidated\n$/);
    const unknown = await cli(["agent", "reset", "nobody", "--url", daemon.url]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("[unknown_agent]");
  });

  it("says what to do when no daemon answers", async () => {
    const r = await cli(["status", "--url", "http://127.0.0.1:9"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "talkide-daemon: No daemon answers at http://127.0.0.1:9. Start it with: talkide-daemon start (or pass --url). [daemon_unreachable]\n",
    );
  });

  it("says where the admin token should be when there is none", async () => {
    const empty = await makeTempDir();
    try {
      const r = await cli(["status", "--url", daemon.url], { TALKIDE_DAEMON_DATA_DIR: empty });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(join(empty, "admin-token"));
      expect(r.stderr).toContain("[no_admin_token]");
    } finally {
      await removeDir(empty);
    }
  });

  it("refuses to start a second daemon on the same data directory", async () => {
    const r = await cli(["start"], { TALKIDE_DAEMON_PORT: "0" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Another daemon (pid ${String(daemon.process.pid)}) is using ${dir}`,
    );
    expect(r.stderr).toContain("[data_dir_in_use]");
  });

  it("refuses bad configuration, naming the variable", async () => {
    const r = await cli(["start"], { TALKIDE_DAEMON_PORT: "not-a-port" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^talkide-daemon: TALKIDE_DAEMON_PORT: .*\[invalid_config\]\n$/);
  });

  it("prints help", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    for (const command of ["start", "status", "agent", "token"])
      expect(r.stdout).toContain(command);
  });
});
