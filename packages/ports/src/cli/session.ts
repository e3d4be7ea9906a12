import { serveSession } from "@talkide/context-spec/session";
import { EXIT } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";
import { runCli } from "./program.ts";

/** The commands that speak the conformance runner's protocol, and so its session mode. */
const RUNNER_COMMANDS: ReadonlySet<string> = new Set(["render-yml", "parse-yml"]);

export function isRunnerCommand(argv: readonly string[]): boolean {
  return RUNNER_COMMANDS.has(argv[0] ?? "");
}

/**
 * The runner protocol's session mode: every input the conformance runner sends is run through
 * the same command line as a per-case run, with standard input, output and error captured,
 * so each answer is byte for byte what a process of its own would have written.
 */
export async function serveRunnerSession(argv: readonly string[], cwd: string): Promise<void> {
  await serveSession(async (input) => {
    let stdout = "";
    let stderr = "";
    const io: CliIo = {
      out: (text) => {
        stdout += text;
      },
      err: (text) => {
        stderr += text;
      },
      readStdin: () => Promise.resolve(input),
      cwd,
    };
    let exitCode: number;
    try {
      exitCode = await runCli(argv, io);
    } catch (error) {
      stderr += `talkide-ports: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`;
      exitCode = EXIT.internal;
    }
    return { exitCode, stdout, stderr };
  });
}
