import { existsSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "@talkide/service-kit";
import { afterAll, describe, expect, it } from "vitest";
import { startDaemon } from "./daemon.ts";
import { makeTempDir, removeDir, testConfig } from "./test-support/harness.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

// Issue 49: every agent may run `ticlawk`, so every command runs in Claude Code's sandbox.
// Where it cannot run (here: bubblewrap and socat not on the PATH the turns get), the daemon
// does not start, says what to install, and offers no way around it.
describe("the daemon refuses to start where the sandbox cannot run", () => {
  it("names what to install, and creates nothing", async () => {
    const root = await makeTempDir();
    dirs.push(root);
    const dataDir = join(root, "data");
    const error = await startDaemon({
      config: testConfig(dataDir),
      logger: createLogger("talkide-daemon", "silent"),
      childBaseEnv: { PATH: "/nonexistent" },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "sandbox_unavailable" });
    const message = (error as Error).message;
    expect(message).toContain("Bash(ticlawk:*)");
    expect(message).toContain("sudo apt-get install bubblewrap socat");
    expect(message).toMatch(/and start again\.$/);
    expect(message).not.toContain("remove the command-running rules");
    // Refused before the data directory (database, admin token) was made.
    expect(existsSync(dataDir)).toBe(false);
  });
});
