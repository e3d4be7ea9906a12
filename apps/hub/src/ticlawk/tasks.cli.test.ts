import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cliError,
  expectRefusals,
  post as postAs,
  startKitchen,
  type HubFixture,
} from "../test-support/hub-harness.ts";

// Real daemon + hub over HTTP, the real `ticlawk` entry point in child processes.
let hub: HubFixture;
let alice = "";
let cook = "";
let critic = "";

beforeAll(async () => {
  let tokens;
  ({ hub, tokens } = await startKitchen({ humans: ["alice"], agents: ["cook", "critic"] }));
  ({ alice = "", cook = "", critic = "" } = tokens);
});
afterAll(() => hub.stop());

const post = (token: string, target: string, body: string) => postAs(hub, token, target, body);
const claim = (number: string) => ["task", "claim", "--target", "#kitchen", "--number", number];

describe("ticlawk task create / list", () => {
  it("posts a task-message with an assignee and a title, and lists the board", async () => {
    const created = await hub.ticlawk(
      alice,
      ["task", "create", "--target", "#kitchen", "--assignee", "cook", "--title", "Soup"],
      {
        stdin: "Cook the lentil soup",
      },
    );
    expect(created.code).toBe(0);
    const [first, line] = created.stdout.trimEnd().split("\n");
    expect(first).toMatch(/^created task #1 \(msg=[0-9a-f]{8}\) in #kitchen$/);
    expect(line).toMatch(
      /^\[target=#kitchen msg=[0-9a-f]{8} seq=\d+ time=\S+ type=human\] @alice: \[task #1 status=todo assignee=agent:cook title="Soup"\] Cook the lentil soup$/,
    );
    await hub.ticlawk(alice, ["task", "create", "--target", "#kitchen"], { stdin: "Bake bread" });

    const list = await hub.ticlawk(critic, ["task", "list", "--target", "#kitchen"]);
    const lines = list.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("Tasks of #kitchen (2):");
    expect(lines[1]).toContain(
      '[task #1 status=todo assignee=agent:cook title="Soup"] Cook the lentil soup',
    );
    expect(lines[2]).toContain("[task #2 status=todo] Bake bread");
    const todo = await hub.ticlawk(critic, [
      "task",
      "list",
      "--target",
      "#kitchen",
      "--status",
      "done",
    ]);
    expect(todo.stdout).toBe("No tasks with status=done in #kitchen.\n");
  });

  it("creates tasks only from top-level messages", async () => {
    const root = await post(alice, "#kitchen", "Plan the week");
    const inThread = await hub.ticlawk(cook, ["task", "create", "--target", `#kitchen:${root}`], {
      stdin: "Monday soup",
    });
    expect(inThread.code).toBe(1);
    expect(cliError(inThread).code).toBe("task_in_thread");
    const reply = await post(cook, `#kitchen:${root}`, "I can do Monday");
    const claimReply = await hub.ticlawk(cook, ["task", "claim", "--message-id", reply]);
    expect(cliError(claimReply).code).toBe("task_in_thread");
  });
});

describe("ticlawk task claim / unclaim", () => {
  it("claims by number; a second claimant gets a clear conflict; the holder can claim again harmlessly", async () => {
    await hub.ticlawk(alice, ["task", "create", "--target", "#kitchen"], {
      stdin: "Wash the pots",
    });
    const list = await hub.hub<{ tasks: { task: { number: number } }[] }>(
      cook,
      "GET",
      "/tasks?target=%23kitchen",
    );
    const number = String(list.body.tasks.at(-1)?.task.number ?? 0);

    const claimed = await hub.ticlawk(cook, claim(number));
    expect(claimed.code).toBe(0);
    expect(claimed.stdout).toMatch(
      new RegExp(`^claimed task #${number} \\(msg=[0-9a-f]{8}\\) in #kitchen\\n`),
    );
    expect(claimed.stdout).toContain(
      `[task #${number} status=todo assignee=agent:cook] Wash the pots`,
    );

    const conflict = await hub.ticlawk(critic, claim(`#${number}`));
    expect(conflict.code).toBe(1);
    expect(cliError(conflict)).toEqual({
      code: "task_already_claimed",
      message: `Task #${number} is already claimed by @cook. Leave it and pick other work.`,
    });
    const again = await hub.ticlawk(cook, claim(number));
    expect(again.stdout).toMatch(/^you already hold task #/);

    const unclaim = ["task", "unclaim", "--target", "#kitchen", "--number", number];
    await expectRefusals(hub, [[critic, unclaim, "not_assignee"]]);
    const released = await hub.ticlawk(cook, unclaim);
    expect(released.stdout).toMatch(new RegExp(`^released task #${number} `));
    expect(released.stdout).toContain(`[task #${number} status=todo] Wash the pots`);
    await expectRefusals(hub, [
      [cook, unclaim, "task_not_claimed"],
      [cook, claim("999"), "unknown_task"],
    ]);
  });

  it("claiming a plain message by id makes it the board's next task", async () => {
    const id = await post(alice, "#kitchen", "Someone fix the oven?");
    const claimed = await hub.ticlawk(critic, ["task", "claim", "--message-id", id]);
    expect(claimed.code).toBe(0);
    expect(claimed.stdout).toMatch(
      new RegExp(`^claimed task #(\\d+) \\(msg=${id}\\) in #kitchen\\n`),
    );
    expect(claimed.stdout).toContain("status=todo assignee=agent:critic] Someone fix the oven?");
    const read = await hub.ticlawk(alice, ["message", "read", "--around", id, "--limit", "1"]);
    expect(read.stdout).toContain("assignee=agent:critic] Someone fix the oven?");
  });
});

describe("ticlawk task update", () => {
  it("moves a task forward to done; going back, or changing a finished task, is refused", async () => {
    const id = await post(alice, "#kitchen", "Taste the soup");
    await hub.ticlawk(cook, ["task", "claim", "--message-id", id]);
    const steps: string[] = [];
    for (const status of ["in_progress", "in_review"]) {
      const r = await hub.ticlawk(cook, ["task", "update", "--message-id", id, "--status", status]);
      expect(r.code).toBe(0);
      steps.push(r.stdout.split("\n")[0]?.replace(/ \(msg=.*$/, "") ?? "");
    }
    expect(steps).toEqual([
      expect.stringMatching(/^set status=in_progress on task #\d+$/),
      expect.stringMatching(/^set status=in_review on task #\d+$/),
    ]);

    const update = (status: string) => ["task", "update", "--message-id", id, "--status", status];
    await expectRefusals(hub, [
      [cook, update("todo"), "invalid_transition"],
      [critic, update("done"), "not_assignee"],
    ]);
    const done = await hub.ticlawk(alice, update("done"));
    expect(done.stdout).toContain("status=done assignee=agent:cook] Taste the soup");
    await expectRefusals(hub, [
      [cook, update("canceled"), "task_closed"],
      [critic, ["task", "claim", "--message-id", id], "task_closed"],
      [cook, update("finished"), "usage_error", 2],
    ]);
  });

  it("a plain message is no task until claimed", async () => {
    const id = await post(alice, "#kitchen", "Just chatting");
    const r = await hub.ticlawk(cook, ["task", "update", "--message-id", id, "--status", "done"]);
    expect(cliError(r).code).toBe("not_a_task");
  });
});

describe("ticlawk charter get / set", () => {
  it("group charters need owner or admin; a refused write changes nothing", async () => {
    const none = await hub.ticlawk(cook, ["charter", "get", "--target", "#kitchen"]);
    expect(none.stdout).toBe("#kitchen has no charter.\n");

    const refused = await hub.ticlawk(cook, ["charter", "set", "--target", "#kitchen"], {
      stdin: "Cook rules",
    });
    expect(refused.code).toBe(1);
    expect(cliError(refused).code).toBe("charter_forbidden");
    expect((await hub.ticlawk(cook, ["charter", "get", "--target", "#kitchen"])).stdout).toBe(
      "#kitchen has no charter.\n",
    );

    const set = await hub.ticlawk(alice, ["charter", "set", "--target", "#kitchen"], {
      stdin: "Goal: feed everyone.\nRoles: @cook cooks.",
    });
    expect(set.stdout).toBe(
      "Charter of #kitchen updated:\n[charter]\nGoal: feed everyone.\nRoles: @cook cooks.\n[/charter]\n",
    );
    const got = await hub.ticlawk(cook, ["charter", "get"], {
      env: { TICLAWK_TARGET: "#kitchen" },
    });
    expect(got.stdout).toBe(
      "Charter of #kitchen:\n[charter]\nGoal: feed everyone.\nRoles: @cook cooks.\n[/charter]\n",
    );

    await hub.api.call("PUT", "/hub/v1/admin/groups/kitchen/members/critic", { role: "admin" });
    const byAdmin = await hub.ticlawk(critic, [
      "charter",
      "set",
      "--target",
      "#kitchen",
      "--clear",
    ]);
    expect(byAdmin.stdout).toBe("Charter of #kitchen cleared.\n");
  });

  it("the agent of a DM may write that DM's charter, and it reaches the agent's next wake", async () => {
    const set = await hub.ticlawk(cook, ["charter", "set", "--target", "dm:@alice"], {
      stdin: "Alice's private sous-chef.",
    });
    expect(set.code).toBe(0);
    const fromAlice = await hub.ticlawk(alice, ["charter", "get", "--target", "dm:@cook"]);
    expect(fromAlice.stdout).toBe(
      "Charter of dm:@cook:\n[charter]\nAlice's private sous-chef.\n[/charter]\n",
    );
    await post(alice, "dm:@cook", "Dinner?");
    const last = (await hub.deliveries("cook")).at(-1);
    expect(last).toMatchObject({
      reason: "dm",
      payload: { conversation_charter: "Alice's private sous-chef." },
    });
  });
});
