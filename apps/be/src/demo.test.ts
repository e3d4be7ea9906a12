import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_MODEL_MARK } from "@talkide/claude-cli/testing";
import { describe, expect, it } from "vitest";
import { baseEnv, runCli, serve } from "./test-support/cli-process.ts";
import { api, sendMessage, terminalEvent } from "./test-support/harness.ts";
import { realClaudeCanRun } from "./test-support/wire-harness.ts";

const canRun = realClaudeCanRun("the @talkide/be demo test");

describe.skipIf(!canRun)("talkide-be serve on a fresh data directory (the README's demo)", () => {
  it("creates the demo user and project once, and answers through the real claude and the local demo model", async () => {
    const demoDir = mkdtempSync(join(tmpdir(), "talkide-be-demo-"));
    // As a new user runs it: no API key, no claude path, so the bundled CLI and the
    // local demo model are used.
    const demoEnv = { ...baseEnv(demoDir) };
    delete demoEnv.ANTHROPIC_API_KEY;
    delete demoEnv.TALKIDE_CLAUDE_PATH;
    try {
      const first = await serve(demoEnv);
      const token = /export TALKIDE_TOKEN=(tkbe_\S+)/.exec(first.stdout())?.[1] ?? "";
      expect(first.stdout()).toContain("LOCAL DEMO MODEL");
      const projects = await api<{ projects: Array<{ id: number; name: string }> }>(
        first,
        token,
        "GET",
        "/v1/projects",
      );
      expect(projects.body.projects.map((p) => [p.id, p.name])).toEqual([[1, "Demo project"]]);
      const turn = await sendMessage(first, token, 1, "Ahoj Maro");
      const done = terminalEvent(turn.events);
      expect(done.event).toBe("turn.succeeded");
      // The demo model says what Mara received: here, who writes.
      const answer = String(done.data.resultText);
      expect(answer.startsWith(`${DEMO_MODEL_MARK} `)).toBe(true);
      expect(answer).toContain("\nPíše teď: Demo\n");
      expect(done.data.demoModel).toBe(true);
      // A second service on the same port says what to do.
      const clash = await runCli(["serve"], {
        ...demoEnv,
        TALKIDE_DATA_DIR: join(demoDir, "second"),
        TALKIDE_PORT: new URL(first.url).port,
      });
      expect(clash.code).toBe(1);
      expect(clash.stderr).toContain("error (address_in_use)");
      expect(clash.stderr).toContain("TALKIDE_PORT");
      expect(await first.stop()).toBe(0);

      const again = await serve(demoEnv);
      expect(again.stdout()).not.toContain("TALKIDE_TOKEN");
      expect((await api(again, token, "GET", "/v1/me")).status).toBe(200);
      expect(await again.stop()).toBe(0);
    } finally {
      rmSync(demoDir, { recursive: true, force: true });
    }
  });
});
