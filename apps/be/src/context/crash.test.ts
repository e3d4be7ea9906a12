import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { api, defaultProject, sendMessage, terminalEvent } from "../test-support/harness.ts";
import { startServiceChild as startChild } from "../test-support/service-child-process.ts";

describe("killing the service in the middle of a render", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "talkide-be-crash-"));
  const pauseFile = join(dataDir, "pause-writes");
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("leaves the old file or the new one, never a partial one, and recovers on restart", async () => {
    const first = await startChild(dataDir, { TALKIDE_TEST_PAUSE_FILE: pauseFile });
    const token = (await first.waitFor(/TALKIDE_TOKEN=(tkbe_\S+)/))[1] ?? "";
    const workspace = join(dataDir, "workspaces", "project-1");
    const claudeMd = join(workspace, "CLAUDE.md");

    const turn1 = await sendMessage(first, token, 1, "first");
    expect(terminalEvent(turn1.events).event).toBe("turn.succeeded");
    const oldBytes = readFileSync(claudeMd);

    const edited = await api(first, token, "PATCH", "/v1/projects/1/members/me", {
      teamBriefing: "Nový briefing.\n".repeat(500),
    });
    expect(edited.status).toBe(200);
    const newText = (await api(first, token, "GET", "/v1/projects/1/context/CLAUDE.md")).text;
    expect(newText).not.toBe(oldBytes.toString("utf8"));

    writeFileSync(pauseFile, "");
    const posted = await api(first, token, "POST", "/v1/projects/1/messages", { text: "second" });
    expect(posted.status).toBe(202);
    const paused = await first.waitFor(/PAUSED-WRITE (\S+)/);
    expect(paused[1]).toBe(claudeMd);
    // The write is under way: its temporary file exists next to the target.
    const temporary = readdirSync(workspace).filter((name) => /^CLAUDE\.md\.\d+$/.test(name));
    expect(temporary).toHaveLength(1);
    first.process.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });

    // The old file, byte for byte.
    expect(readFileSync(claudeMd).equals(oldBytes)).toBe(true);

    rmSync(pauseFile);
    const second = await startChild(dataDir, { TALKIDE_TEST_PAUSE_FILE: pauseFile });
    try {
      // The interrupted write's temporary file is cleaned up, the interrupted turn is failed.
      expect(readdirSync(workspace).filter((name) => /^CLAUDE\.md\.\d+$/.test(name))).toEqual([]);
      expect(existsSync(claudeMd)).toBe(true);
      const turns = await api<{
        turns: Array<{ number: number; status: string; error: { code: string } | null }>;
      }>(second, token, "GET", "/v1/projects/1/turns");
      expect(turns.body.turns.map((t) => [t.number, t.status, t.error?.code ?? null])).toEqual([
        [2, "failed", "service_restarted"],
        [1, "succeeded", null],
      ]);
      const turn3 = await sendMessage(second, token, 1, "third");
      expect(terminalEvent(turn3.events).event).toBe("turn.succeeded");
      expect(readFileSync(claudeMd, "utf8")).toBe(newText);
      // The kill -9 gave no project id away (a sequence would have skipped its cached ids).
      const next = await api<{ project: { id: number } }>(
        second,
        token,
        "POST",
        "/v1/projects",
        defaultProject,
      );
      expect(next.body.project.id).toBe(2);
      // The demo token was printed by the first start only.
      expect(second.output()).not.toContain("TALKIDE_TOKEN=");
    } finally {
      second.process.kill("SIGTERM");
      expect(await second.exited).toEqual({ code: 0, signal: null });
    }
  }, 300_000); // a bound for a hung run only: on a loaded 2-core machine this takes minutes
});
