import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { FAKE_CLAUDE_PATH, readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import {
  ApiClient,
  makeTempDir,
  NODE_FROM_SOURCE,
  removeDir,
  seedPgliteDataDir,
  stopWithOwner,
  waitFor,
} from "@talkide/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonApi } from "./test-support/daemon-process.ts";
import {
  DAEMON_COMMAND,
  HUB_MAIN,
  runCommand,
  runNode,
  TICLAWK_MAIN,
} from "./test-support/hub-harness.ts";

// The whole local loop on one machine, started as a user starts it (`talkide-hub
// local-loop`: the hub in that process, the daemon as its child, wired over HTTP only): a
// person posts with `ticlawk`, the daemon wakes the mentioned agent (the fake `claude`,
// which runs the real `ticlawk` from its PATH), the reply lands in the hub and is routed on
// to the other agent as ambient.
let dir: string;
let recordFile: string;
let loop: ChildProcess;
let hubUrl: string;
let daemon: DaemonApi;
let hubAdminToken: string;

const AGENT_SCRIPT = [
  'if [ "$TICLAWK_AGENT_ID" = cook ]; then',
  "  printf '%s' 'Soup is ready.' | ticlawk message send --target \"$TICLAWK_TARGET\"",
  "fi",
].join("\n");

beforeAll(async () => {
  dir = await makeTempDir("talkide-hub-loop-");
  recordFile = join(dir, "claude-calls.jsonl");
  // Empty database clusters to start from: creating one takes seconds on a loaded machine.
  await seedPgliteDataDir(join(dir, ".data", "daemon"));
  await seedPgliteDataDir(join(dir, ".data", "hub"));
  loop = spawn(process.execPath, [...NODE_FROM_SOURCE, HUB_MAIN, "local-loop"], {
    cwd: dir,
    env: {
      ...process.env,
      TALKIDE_DAEMON_PORT: "0",
      TALKIDE_HUB_PORT: "0",
      TALKIDE_DAEMON_LOG_LEVEL: "warn",
      TALKIDE_HUB_LOG_LEVEL: "warn",
      TALKIDE_HOST_ID: "loop-host",
      TALKIDE_CLAUDE_PATH: FAKE_CLAUDE_PATH,
      FAKE_CLAUDE_RUN: AGENT_SCRIPT,
      FAKE_CLAUDE_RECORD: recordFile,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  // The loop stops its daemon and hub on SIGTERM, which the watchdog sends if this worker dies.
  stopWithOwner(loop);
  let banner = "";
  const urls = await new Promise<{ daemon: string; hub: string }>((resolve, reject) => {
    loop.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      banner += chunk;
      const found = /daemon (http:\S+) .* hub (http:\S+) /.exec(banner);
      if (found?.[1] !== undefined && found[2] !== undefined)
        resolve({ daemon: found[1], hub: found[2] });
    });
    loop.once("exit", (code) => {
      reject(new Error(`talkide-hub local-loop exited (${String(code)}): ${banner}`));
    });
  });
  hubUrl = urls.hub;
  daemon = new DaemonApi(
    urls.daemon,
    (await readFile(join(dir, ".data", "daemon", "admin-token"), "utf8")).trim(),
  );
  hubAdminToken = (await readFile(join(dir, ".data", "hub", "admin-token"), "utf8")).trim();
});
afterAll(async () => {
  if (loop.exitCode === null) {
    const exited = once(loop, "exit");
    loop.kill("SIGTERM");
    await exited;
  }
  await removeDir(dir);
});

/** `talkide-daemon <args>` / `talkide-hub <args>` against the running loop, as an operator would type them. */
async function operator(program: "talkide-daemon" | "talkide-hub", args: readonly string[]) {
  const options = { cwd: dir };
  const r =
    program === "talkide-hub"
      ? await runNode(HUB_MAIN, [...args, "--url", hubUrl, "--token", hubAdminToken], options)
      : await runCommand(
          DAEMON_COMMAND,
          [...args, "--url", daemon.url, "--token", daemon.token],
          options,
        );
  if (r.code !== 0) throw new Error(`${program} ${args.join(" ")}: ${r.stderr}`);
  return r;
}

/** The delivery documents the daemon accepted for an agent, oldest first. */
async function deliveriesOf(agentId: string) {
  const listed = await daemon.deliveries(agentId);
  return Promise.all(listed.map((d) => daemon.withPayload(d)));
}

describe("the local loop", () => {
  it("a mention wakes the agent, its reply goes through ticlawk into the hub and on to the other agent", async () => {
    await operator("talkide-daemon", ["agent", "register", "cook", "--workspace", "cook"]);
    await operator("talkide-daemon", ["agent", "register", "critic", "--workspace", "critic"]);
    await operator("talkide-hub", ["member", "add", "--agent", "cook"]);
    await operator("talkide-hub", ["member", "add", "--agent", "critic"]);
    const added = await operator("talkide-hub", ["member", "add", "--human", "alice"]);
    const alice = added.stdout.trim();
    expect(alice).toMatch(/^thk_/);
    expect(added.stderr).toContain("shown only this once");
    await operator("talkide-hub", [
      "group",
      "create",
      "kitchen",
      "--owner",
      "alice",
      "--member",
      "cook",
      "--member",
      "critic",
    ]);

    const env = { TICLAWK_HUB_URL: hubUrl, TICLAWK_TOKEN: alice };
    const posted = await runNode(TICLAWK_MAIN, ["message", "send", "--target", "#kitchen"], {
      env,
      stdin: "@cook is the soup ready?",
    });
    expect(posted.code).toBe(0);
    const question = /msg=([0-9a-f]{8})/.exec(posted.stdout)?.[1] ?? "";

    // The critic sees the question and then the cook's reply, both as ambient.
    const criticDeliveries = await waitFor(async () => {
      const all = await deliveriesOf("critic");
      return all.length >= 2 ? all : null;
    }, "2 deliveries for critic");
    expect(criticDeliveries.map((d) => d.reason)).toEqual(["ambient", "ambient"]);
    const reply = criticDeliveries[1]?.payload ?? {};
    expect(reply).toMatchObject({
      sender_type: "agent",
      sender_display_name: "cook",
      sender_agent_id: "cook",
      conversation_name: "kitchen",
      text: "Soup is ready.",
      reason: "ambient",
    });
    // The cook was woken once (the mention), never by its own reply.
    const cookDeliveries = await deliveriesOf("cook");
    expect(cookDeliveries.map((d) => [d.reason, d.payload["id"]])).toEqual([["mention", question]]);

    const read = await runNode(TICLAWK_MAIN, ["message", "read", "--target", "#kitchen"], { env });
    const lines = read.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/type=human\] @alice: @cook is the soup ready\?$/);
    expect(lines[2]).toMatch(
      new RegExp(
        `^\\[target=#kitchen msg=${String(reply["id"])} seq=2 .* type=agent\\] @cook: Soup is ready\\.$`,
      ),
    );

    // The agent's turn had the hub's address and a credential for that turn only.
    await daemon.settled((await daemon.deliveries()).map((d) => d.id));
    const records = await readFakeClaudeRecords(recordFile);
    const cookTurn = records.find((r) => r.env["TICLAWK_AGENT_ID"] === "cook");
    expect(cookTurn?.env["TICLAWK_HUB_URL"]).toBe(hubUrl);
    expect(cookTurn?.env["TICLAWK_TARGET"]).toBe("#kitchen");
    expect(cookTurn?.run).toMatchObject({ exitCode: 0, stderr: "" });
    expect(cookTurn?.run?.stdout).toMatch(/^sent \[target=#kitchen msg=/);
    const turnToken = cookTurn?.env["TICLAWK_TOKEN"] ?? "";
    expect(turnToken).toMatch(/^tkt_/);
    const hub = new ApiClient(hubUrl, turnToken);
    const afterTurn = await waitFor(async () => {
      const r = await hub.call<{ error: { code: string } }>("GET", "/hub/v1/me");
      return r.status === 401 ? r : null;
    }, "the turn's token to expire with its turn");
    expect(afterTurn.body.error.code).toBe("token_expired");
  });
});
