import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/program.ts";
import { startHub, type HubFixture } from "./test-support/hub-harness.ts";

// `talkide-daemon hub ...` in process (the same commander program as the bin), against a
// real daemon over HTTP. The end-to-end test runs `member add` and `group create` as the bin.
let hub: HubFixture;

async function daemonCli(args: readonly string[]) {
  let out = "";
  let err = "";
  const code = await runCli([...args, "--url", hub.url, "--token", hub.test.daemon.adminToken], {
    env: {},
    cwd: hub.dataDir,
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  return { code, out, err };
}

beforeAll(async () => {
  hub = await startHub();
  await hub.api.registerAgent("cook", `${hub.dataDir}/cook`);
});
afterAll(async () => {
  await hub.stop();
});

describe("talkide-daemon hub", () => {
  it("adds people and agents, lists them, and prints new tokens that work", async () => {
    const person = await daemonCli(["hub", "member", "add", "--human", "Jiří", "--role", "admin"]);
    expect(person.code).toBe(0);
    expect(person.out).toMatch(/^thk_[\w-]{43}\n$/);
    expect(person.err).toContain("shown only this once");
    const agent = await daemonCli(["hub", "member", "add", "--agent", "cook", "--handle", "chef"]);
    expect(agent.out).toBe("@chef added (agent cook)\n");

    const list = await daemonCli(["hub", "member", "list"]);
    expect(list.out).toBe("@chef\tagent\tcook\n@Jiří\thuman\n");

    const token = await daemonCli(["hub", "token", "@chef"]);
    const chef = token.out.trim();
    const me = await hub.hub<{ text: string }>(chef, "GET", "/me");
    expect(me.body.text).toBe("@chef (agent)\n");
    const members = await hub.hub<{ text: string }>(chef, "GET", "/members?target=%23general");
    expect(members.body.text).toBe(
      "Members of #general (2):\n  @Jiří human admin\n  @chef agent member\n",
    );
  });

  it("creates groups and changes who is in them", async () => {
    expect(
      (
        await daemonCli([
          "hub",
          "group",
          "create",
          "#ops",
          "--description",
          "Deploys",
          "--owner",
          "@Jiří",
        ])
      ).out,
    ).toBe("#ops created with 1 member(s)\n");
    expect((await daemonCli(["hub", "group", "add", "ops", "chef", "--role", "admin"])).out).toBe(
      "@chef is admin of #ops\n",
    );
    expect((await daemonCli(["hub", "group", "remove", "ops", "chef"])).out).toBe(
      "@chef removed from #ops\n",
    );
  });

  it("refuses bad input with the API's code, changing nothing", async () => {
    const both = await daemonCli(["hub", "member", "add", "--human", "x", "--agent", "cook"]);
    expect(both.code).not.toBe(0);
    const taken = await daemonCli(["hub", "member", "add", "--human", "JIŘÍ"]);
    expect(taken).toMatchObject({
      code: 1,
      err: expect.stringContaining("[handle_taken]") as unknown,
    });
    const badHandle = await daemonCli(["hub", "member", "add", "--human", "a b"]);
    expect(badHandle.err).toContain("[invalid_handle]");
    const unknownAgent = await daemonCli(["hub", "member", "add", "--agent", "ghost"]);
    expect(unknownAgent.err).toContain("[unknown_agent]");
    const twice = await daemonCli(["hub", "member", "add", "--agent", "cook"]);
    expect(twice.err).toContain("[agent_already_member]");
    const group = await daemonCli(["hub", "group", "create", "ops"]);
    expect(group.err).toContain("[group_exists]");
    expect((await daemonCli(["hub", "member", "list"])).out).toBe(
      "@chef\tagent\tcook\n@Jiří\thuman\n",
    );
  });
});
