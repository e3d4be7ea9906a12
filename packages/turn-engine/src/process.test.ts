import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildClaudeArgs, WarmProcessPool } from "@talkide/claude-cli";
import { FAKE_CLAUDE_PATH, readFakeClaudeRecords } from "@talkide/claude-cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  keepOrRetire,
  takeProcess,
  type ProcessCredential,
  type ProcessRequest,
} from "./process.ts";

// The process stages against a real pool and the fake `claude` (a real child process).
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "turn-engine-process-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the process stages", () => {
  it("starts cold, keeps a successful turn's process, takes it warm, and retires a failed one", async () => {
    const pool = new WarmProcessPool({ capacity: 2, idleMs: 60_000 });
    const recordFile = join(root, "records.jsonl");
    const steps: string[] = [];
    const request = (turnId: string, point: ProcessRequest["point"], digest: string) => ({
      key: "conversation-1",
      point,
      digest,
      turnId,
      cold: {
        claudePath: FAKE_CLAUDE_PATH,
        cwd: root,
        args: buildClaudeArgs({}),
        env: { FAKE_CLAUDE_RECORD: recordFile, FAKE_CLAUDE_STATE_DIR: join(root, "state") },
        markerVariable: "ENGINE_TURN_ID",
        killGraceMs: 300,
      },
      beforeColdStart: () => {
        steps.push(`${turnId}: before cold start`);
        return Promise.resolve();
      },
      beforeColdResume: () => {
        steps.push(`${turnId}: before cold resume`);
        return Promise.resolve();
      },
    });
    try {
      const first = await takeProcess(pool, request("t1", null, "d1"));
      expect(first).toMatchObject({ kind: "cold", coldReason: "new_session", marker: "t1" });
      const result = await first.process.runTurn({ prompt: "one", timeoutMs: 120_000 });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      keepOrRetire(pool, "conversation-1", first, result, "d1");
      const [record] = await readFakeClaudeRecords(recordFile);
      expect(record?.env["ENGINE_TURN_ID"]).toBe("t1");

      // The session stands where the kept process left it, and nothing it read changed.
      const point = { id: result.sessionId, at: result.lastMessageId };
      const second = await takeProcess(pool, request("t2", point, "d1"));
      expect(second).toMatchObject({ kind: "warm", coldReason: null, marker: "t1" });
      expect(second.process).toBe(first.process);
      keepOrRetire(pool, "conversation-1", second, { ok: false }, "d1");

      // Its process was retired: the next turn starts cold, resuming, and says why.
      const third = await takeProcess(pool, request("t3", point, "d1"));
      expect(third).toMatchObject({
        kind: "cold",
        coldReason: "previous_turn_failed",
        marker: "t3",
      });
      expect(steps).toEqual([
        "t1: before cold start",
        "t3: before cold start",
        "t3: before cold resume",
      ]);
      keepOrRetire(pool, "conversation-1", third, { ok: false }, "d1");
    } finally {
      await pool.close();
    }
  });

  it("gives each new process a credential of its own, which a kept process brings back and its end revokes", async () => {
    const pool = new WarmProcessPool({ capacity: 2, idleMs: 60_000 });
    const recordFile = join(root, "credential-records.jsonl");
    const issued: Array<{ token: string; events: string[] }> = [];
    const issue = (): ProcessCredential => {
      const own = { token: `token-${issued.length + 1}`, events: [] as string[] };
      issued.push(own);
      return {
        env: { ANTHROPIC_API_KEY: own.token },
        attach: (turn) => own.events.push(`attach ${turn.turnId}`),
        detach: () => own.events.push("detach"),
        revoke: () => own.events.push("revoke"),
      };
    };
    const request = (turnId: string, point: ProcessRequest["point"]): ProcessRequest => ({
      key: "conversation-2",
      point,
      digest: "d1",
      turnId,
      cold: {
        claudePath: FAKE_CLAUDE_PATH,
        cwd: root,
        args: buildClaudeArgs({}),
        env: { FAKE_CLAUDE_RECORD: recordFile, FAKE_CLAUDE_STATE_DIR: join(root, "state-2") },
        markerVariable: "ENGINE_TURN_ID",
        killGraceMs: 300,
        credential: issue,
      },
    });
    try {
      const first = await takeProcess(pool, request("t1", null));
      const result = await first.process.runTurn({ prompt: "one", timeoutMs: 120_000 });
      if (!result.ok) throw new Error(result.message);
      keepOrRetire(pool, "conversation-2", first, result, "d1");
      const [record] = await readFakeClaudeRecords(recordFile);
      expect(record?.env["ANTHROPIC_API_KEY"]).toBe("token-1");
      const second = await takeProcess(
        pool,
        request("t2", { id: result.sessionId, at: result.lastMessageId }),
      );
      expect(second.kind).toBe("warm");
      expect(second.credential).toBe(first.credential);
      expect(issued).toHaveLength(1);
      keepOrRetire(pool, "conversation-2", second, { ok: false }, "d1");
      await second.process.whenEnded();
      expect(issued[0]?.events).toEqual(["revoke"]);
    } finally {
      await pool.close();
    }
  });
});
