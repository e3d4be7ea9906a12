import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { DaemonEvent } from "../events/bus.ts";
import {
  makeDelivery,
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";

// Contract section 6 in the daemon: an agent's workspace stands alone, checked when it is
// registered, at start and before every turn; files it holds in instruction locations are
// reported; the CLI gets the daemon's own config dir, no auto memory, no git status block.
describe("agent workspaces stand alone", { timeout: 300_000 }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function daemon(): Promise<{ td: TestDaemon; dir: string; events: DaemonEvent[] }> {
    const dir = await makeTempDir();
    cleanups.push(() => removeDir(dir));
    const td = await startTestDaemon({
      dataDir: join(dir, "data"),
      childEnv: {
        FAKE_CLAUDE_RECORD: join(dir, "records.jsonl"),
        FAKE_CLAUDE_STATE_DIR: join(dir, "fake-claude"),
      },
    });
    cleanups.push(() => td.stop());
    const events: DaemonEvent[] = [];
    td.daemon.events.subscribe((event) => events.push(event));
    return { td, dir, events };
  }

  it("refuses to register a workspace below an instruction file, naming it", async () => {
    const { td, dir } = await daemon();
    await mkdir(join(dir, "repo", ".claude", "rules"), { recursive: true });
    await writeFile(join(dir, "repo", ".claude", "rules", "style.md"), "Use tabs.\n");
    const response = await td.api.call<{ error: { code: string; message: string; path: string } }>(
      "PUT",
      "/v1/agents/cook",
      { workspaceDir: join(dir, "repo", "agents", "cook") },
    );
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("workspace_not_isolated");
    expect(response.body.error.message).toContain(join(dir, "repo", ".claude", "rules"));
    expect(response.body.error.path).toBe("workspaceDir");
  });

  it("runs a turn in its own git repository with the daemon's config dir, and moves out and reports instruction files inside", async () => {
    const { td, dir, events } = await daemon();
    const workspace = join(dir, "agents", "cook");
    await td.api.registerAgent("cook", workspace);
    await writeFile(join(workspace, "CLAUDE.md"), "Written by the agent.\n");
    const ack = await td.api.deliver("cook", makeDelivery());
    const [settled] = await td.api.settled([ack.body.delivery.id]);
    expect(settled?.state).toBe("completed");
    expect((await stat(join(workspace, ".git"))).isDirectory()).toBe(true);
    expect(events).toContainEqual({
      type: "workspace.instructions",
      deliveryId: ack.body.delivery.id,
      agentId: "cook",
      files: ["CLAUDE.md"],
    });
    // Issue 49: moved out of the workspace before the spawn, kept under the data directory.
    await expect(stat(join(workspace, "CLAUDE.md"))).rejects.toThrow();
    const quarantine = join(dir, "data", "quarantine");
    const [agentFolder] = await readdir(quarantine);
    const [moved] = await readdir(join(quarantine, agentFolder ?? ""));
    expect(
      await readFile(join(quarantine, agentFolder ?? "", moved ?? "", "CLAUDE.md"), "utf8"),
    ).toBe("Written by the agent.\n");
    const [record] = await readFakeClaudeRecords(join(dir, "records.jsonl"));
    expect(record?.env).toMatchObject({
      CLAUDE_CONFIG_DIR: join(dir, "data", "claude"),
      CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
      CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "1",
    });
  });

  it("fails the delivery without spawning when an instruction file appears above the workspace", async () => {
    const { td, dir } = await daemon();
    const workspace = join(dir, "agents", "cook");
    await td.api.registerAgent("cook", workspace);
    await writeFile(join(dir, "agents", "AGENTS.md"), "Instructions for every agent.\n");
    const ack = await td.api.deliver("cook", makeDelivery());
    const [settled] = await td.api.settled([ack.body.delivery.id]);
    expect(settled?.state).toBe("failed");
    expect(settled?.failureReason).toBe("workspace_not_isolated");
    expect(await readFakeClaudeRecords(join(dir, "records.jsonl")).catch(() => [])).toEqual([]);
  });

  it("checks the workspace the agent has at each turn, also after it moved or changed", async () => {
    // The scheduler starts the check on the workspace of the agent's previous turn while it
    // claims the delivery; the claim decides which workspace counts.
    const { td, dir } = await daemon();
    const run = async () => {
      const ack = await td.api.deliver("cook", makeDelivery());
      const [settled] = await td.api.settled([ack.body.delivery.id]);
      return [settled?.state, settled?.failureReason ?? null];
    };
    const first = join(dir, "first", "cook");
    const second = join(dir, "second", "cook");
    await td.api.registerAgent("cook", first);
    expect(await run()).toEqual(["completed", null]);
    // Moved to a workspace that then got an instruction file above it: refused.
    await td.api.registerAgent("cook", second);
    await writeFile(join(dir, "second", "AGENTS.md"), "Instructions for every agent.\n");
    expect(await run()).toEqual(["failed", "workspace_not_isolated"]);
    // Back in the first one, clean, while the second stays unsafe: runs.
    await td.api.registerAgent("cook", first);
    expect(await run()).toEqual(["completed", null]);
    // The same workspace, unsafe since its last turn: refused.
    await writeFile(join(dir, "first", "CLAUDE.md"), "Instructions for every agent.\n");
    expect(await run()).toEqual(["failed", "workspace_not_isolated"]);
  });

  it("does not start while a registered workspace has an instruction file above it", async () => {
    const { td, dir } = await daemon();
    await td.api.registerAgent("cook", join(dir, "agents", "cook"));
    await td.stop();
    await writeFile(join(dir, "agents", "CLAUDE.md"), "Instructions for every agent.\n");
    const error = await startTestDaemon({ dataDir: join(dir, "data") }).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("workspace_not_isolated");
    expect((error as Error).message).toContain(join(dir, "agents", "CLAUDE.md"));
  });
});
