import { execFile } from "node:child_process";
import { ClaudeCliError } from "./errors.ts";

export interface DetectClaudeVersionOptions {
  /** Environment of the `--version` call; defaults to this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Default 10 000 ms. */
  readonly timeoutMs?: number | undefined;
}

/**
 * Runs `claude --version` and returns the version number it prints first
 * (`2.1.330 (Claude Code)` → `2.1.330`). Throws `ClaudeCliError` with code
 * `version_unreadable` when the binary cannot be run or prints no version.
 */
export function detectClaudeVersion(
  claudePath: string,
  options: DetectClaudeVersionOptions = {},
): Promise<string> {
  return new Promise<string>((resolvePromise, rejectPromise) => {
    execFile(
      claudePath,
      ["--version"],
      {
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 10_000,
        killSignal: "SIGKILL",
        encoding: "utf8",
        maxBuffer: 64 * 1024,
      },
      (error, stdout, stderr) => {
        if (error !== null) {
          const code = (error as NodeJS.ErrnoException).code;
          const why =
            code === "ENOENT" || code === "EACCES"
              ? `it does not exist or is not executable (${code})`
              : `${error.message.split("\n")[0] ?? "it failed"}${stderr.trim() === "" ? "" : `: ${stderr.trim().slice(0, 300)}`}`;
          rejectPromise(
            new ClaudeCliError(
              "version_unreadable",
              "claudePath",
              `Could not run ${JSON.stringify(claudePath)} --version: ${why}. Install @anthropic-ai/claude-code or configure the path of the claude binary.`,
            ),
          );
          return;
        }
        const version = parseClaudeVersion(stdout);
        if (version === null) {
          rejectPromise(
            new ClaudeCliError(
              "version_unreadable",
              "claudePath",
              `${JSON.stringify(claudePath)} --version printed no version number (got ${JSON.stringify(stdout.slice(0, 120))}); is it Claude Code?`,
            ),
          );
          return;
        }
        resolvePromise(version);
      },
    );
  });
}

/** The first dotted version number in `claude --version` output, or null. */
export function parseClaudeVersion(output: string): string | null {
  const match = /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/.exec(output);
  return match?.[1] ?? null;
}
