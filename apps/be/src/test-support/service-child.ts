// The service as a child process, for tests that kill it. Configured from the environment
// like `talkide-be serve`. With TALKIDE_TEST_PAUSE_FILE set, a context write that starts
// while that file exists announces itself on stdout ("PAUSED-WRITE <path>") right after its
// temporary file was created, and never finishes: the test then kills the process in the
// middle of the render.
import { existsSync } from "node:fs";
import { loadConfig } from "../config.ts";
import { startService } from "../service.ts";

const pauseFile = process.env.TALKIDE_TEST_PAUSE_FILE;
const service = await startService({
  config: loadConfig(process.env),
  writeHooks: {
    beforeWrite: async (target) => {
      if (pauseFile === undefined || !existsSync(pauseFile)) return;
      process.stdout.write(`PAUSED-WRITE ${target}\n`);
      await new Promise<never>(() => undefined);
    },
  },
});
process.once("SIGTERM", () => {
  void service.close().then(() => process.exit(0));
});
