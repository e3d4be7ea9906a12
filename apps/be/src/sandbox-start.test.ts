import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { startService } from "./service.ts";

// Issue 49: a rule that lets the agent run commands needs the sandbox they run in. Without
// bubblewrap and socat the service does not start, and says what to install.
describe("the backend refuses to start with command-running rules and no sandbox", () => {
  it.each(["Bash(npm test:*),Bash(talkide-ports check)", "Bash(*)", "Read,Bash"])(
    "TALKIDE_CLAUDE_ALLOWED_TOOLS=%s",
    async (rules) => {
      const root = await mkdtemp(join(tmpdir(), "be-sandbox-start-"));
      try {
        const config = loadConfig({
          TALKIDE_DATA_DIR: join(root, "data"),
          TALKIDE_WORKSPACES_DIR: join(root, "workspaces"),
          TALKIDE_PORT: "0",
          TALKIDE_DEMO: "false",
          TALKIDE_LOG_LEVEL: "silent",
          TALKIDE_CLAUDE_ALLOWED_TOOLS: rules,
          ANTHROPIC_API_KEY: "test-key",
        });
        const error = await startService({
          config,
          print: () => undefined,
          parentEnv: { PATH: "/nonexistent" },
        }).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: "sandbox_unavailable" });
        expect((error as Error).message).toContain("sudo apt-get install bubblewrap socat");
        expect((error as Error).message).toContain("TALKIDE_CLAUDE_ALLOWED_TOOLS");
        // Nothing was started or created beyond the data directory itself.
        expect(existsSync(join(root, "workspaces"))).toBe(false);
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    },
  );
});
