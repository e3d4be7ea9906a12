import { join } from "node:path";
import { FAKE_CLAUDE_PATH, readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir, waitFor } from "../test-support/harness.ts";
import {
  DAEMON_MAIN,
  runNode,
  startHub,
  TICLAWK_MAIN,
  type HubFixture,
} from "./test-support/hub-harness.ts";

// The whole local loop on one machine: a person posts with `ticlawk`, the daemon wakes the
// mentioned agent (the fake `claude`, which runs the real `ticlawk` from its PATH), the reply
// lands in the hub and is routed on to the other agent as ambient.
let hub: HubFixture;
let dir: string;
let recordFile: string;

const AGENT_SCRIPT = [
  'if [ "$TICLAWK_AGENT_ID" = cook ]; then',
  "  printf '%s' 'Soup is ready.' | ticlawk message send --target \"$TICLAWK_TARGET\"",
  "fi",
].join("\n");

beforeAll(async () => {
  dir = await makeTempDir("talkide-hub-loop-");
  recordFile = join(dir, "claude-calls.jsonl");
  hub = await startHub({
    config: { claudePath: FAKE_CLAUDE_PATH },
    childEnv: { FAKE_CLAUDE_RUN: AGENT_SCRIPT, FAKE_CLAUDE_RECORD: recordFile },
  });
});
afterAll(async () => {
  await hub.stop();
  await removeDir(dir);
});

/** `talkide-daemon <args>` against the running daemon, as an operator would type it. */
async function daemonCli(args: readonly string[]) {
  const r = await runNode(
    DAEMON_MAIN,
    [...args, "--url", hub.url, "--token", hub.test.daemon.adminToken],
    { cwd: dir },
  );
  if (r.code !== 0) throw new Error(`talkide-daemon ${args.join(" ")}: ${r.stderr}`);
  return r;
}

describe("the local loop", () => {
  it("a mention wakes the agent, its reply goes through ticlawk into the hub and on to the other agent", async () => {
    await daemonCli(["agent", "register", "cook", "--workspace", "cook"]);
    await daemonCli(["agent", "register", "critic", "--workspace", "critic"]);
    await daemonCli(["hub", "member", "add", "--agent", "cook"]);
    await daemonCli(["hub", "member", "add", "--agent", "critic"]);
    const added = await daemonCli(["hub", "member", "add", "--human", "alice"]);
    const alice = added.stdout.trim();
    expect(alice).toMatch(/^thk_/);
    expect(added.stderr).toContain("shown only this once");
    await daemonCli([
      "hub",
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

    const env = { TICLAWK_HUB_URL: hub.url, TICLAWK_TOKEN: alice };
    const posted = await runNode(TICLAWK_MAIN, ["message", "send", "--target", "#kitchen"], {
      env,
      stdin: "@cook is the soup ready?",
    });
    expect(posted.code).toBe(0);
    const question = /msg=([0-9a-f]{8})/.exec(posted.stdout)?.[1] ?? "";

    // The critic sees the question and then the cook's reply, both as ambient.
    const criticDeliveries = await hub.waitDeliveries("critic", 2);
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
    const cookDeliveries = await hub.deliveries("cook");
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

    // The agent's turn had the hub's address and a token for that turn only.
    await hub.test.api.settled((await hub.test.api.deliveries()).map((d) => d.id));
    const records = await readFakeClaudeRecords(recordFile);
    const cookTurn = records.find((r) => r.env["TICLAWK_AGENT_ID"] === "cook");
    expect(cookTurn?.env["TICLAWK_HUB_URL"]).toBe(hub.url);
    expect(cookTurn?.env["TICLAWK_TARGET"]).toBe("#kitchen");
    expect(cookTurn?.run).toMatchObject({ exitCode: 0, stderr: "" });
    expect(cookTurn?.run?.stdout).toMatch(/^sent \[target=#kitchen msg=/);
    const turnToken = cookTurn?.env["TICLAWK_TOKEN"] ?? "";
    expect(turnToken).toMatch(/^thk_/);
    const afterTurn = await waitFor(async () => {
      const r = await hub.hub<{ error: { code: string } }>(turnToken, "GET", "/me");
      return r.status === 401 ? r : null;
    }, "the turn's token to expire with its turn");
    expect(afterTurn.body.error.code).toBe("token_expired");
  });
});
