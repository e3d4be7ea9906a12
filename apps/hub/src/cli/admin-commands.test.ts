import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, type HubFixture } from "../test-support/hub-harness.ts";
import { runCli } from "./program.ts";

// `talkide-hub ...` in process (the same commander program as the bin), against a real hub
// over HTTP. The end-to-end test runs `member add` and `group create` as the bin.
let hub: HubFixture;

async function hubCli(args: readonly string[]) {
  let out = "";
  let err = "";
  const code = await runCli([...args, "--url", hub.url, "--token", hub.running.adminToken], {
    env: {},
    cwd: hub.dataDir,
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  return { code, out, err };
}

beforeAll(async () => {
  hub = await startHub();
  await hub.test.api.registerAgent("cook", `${hub.dataDir}/cook`);
});
afterAll(async () => {
  await hub.stop();
});

describe("talkide-hub", () => {
  it("adds people and agents, lists them, and prints new tokens that work", async () => {
    const person = await hubCli(["member", "add", "--human", "Jiří", "--role", "admin"]);
    expect(person.code).toBe(0);
    expect(person.out).toMatch(/^thk_[\w-]{43}\n$/);
    expect(person.err).toContain("shown only this once");
    const agent = await hubCli(["member", "add", "--agent", "cook", "--handle", "chef"]);
    expect(agent.out).toBe("@chef added (agent cook)\n");

    const list = await hubCli(["member", "list"]);
    expect(list.out).toBe("@chef\tagent\tcook\n@Jiří\thuman\n");

    const token = await hubCli(["token", "@chef"]);
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
      (await hubCli(["group", "create", "#ops", "--description", "Deploys", "--owner", "@Jiří"]))
        .out,
    ).toBe("#ops created with 1 member(s)\n");
    expect((await hubCli(["group", "add", "ops", "chef", "--role", "admin"])).out).toBe(
      "@chef is admin of #ops\n",
    );
    expect((await hubCli(["group", "remove", "ops", "chef"])).out).toBe(
      "@chef removed from #ops\n",
    );
  });

  it("refuses bad input with the API's code, changing nothing", async () => {
    const both = await hubCli(["member", "add", "--human", "x", "--agent", "cook"]);
    expect(both.code).not.toBe(0);
    const taken = await hubCli(["member", "add", "--human", "JIŘÍ"]);
    expect(taken).toMatchObject({
      code: 1,
      err: expect.stringContaining("[handle_taken]") as unknown,
    });
    const badHandle = await hubCli(["member", "add", "--human", "a b"]);
    expect(badHandle.err).toContain("[invalid_handle]");
    const unknownAgent = await hubCli(["member", "add", "--agent", "ghost"]);
    expect(unknownAgent.err).toContain("[unknown_agent]");
    const twice = await hubCli(["member", "add", "--agent", "cook"]);
    expect(twice.err).toContain("[agent_already_member]");
    const group = await hubCli(["group", "create", "ops"]);
    expect(group.err).toContain("[group_exists]");
    expect((await hubCli(["member", "list"])).out).toBe("@chef\tagent\tcook\n@Jiří\thuman\n");
  });
});
