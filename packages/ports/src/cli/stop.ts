import { EXIT, type ExitCode } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";
import { loadProjectFile } from "./project-file.ts";
import { reportBadFile } from "./report-bad-file.ts";
import { describe, stopPortHolder, type PortTarget, type StopResult } from "./stop-holder.ts";

export interface StopCommandOptions {
  readonly projectDir: string;
  readonly json: boolean;
  readonly graceMs: number;
}

/** `stop <be|fe>`: stops whatever holds this project's own BE or FE port, and nothing else. */
export async function stop(
  io: CliIo,
  target: PortTarget,
  options: StopCommandOptions,
): Promise<ExitCode> {
  const loaded = await loadProjectFile(options.projectDir);
  if (!loaded.ok) return reportBadFile(io, loaded.file, loaded.error, options.json);
  const result = await stopPortHolder(loaded.values, target, { graceMs: options.graceMs });
  if (options.json) io.out(`${JSON.stringify(result)}\n`);
  else report(io, result);
  return exitCodeOf(result);
}

function exitCodeOf(result: StopResult): ExitCode {
  switch (result.result) {
    case "free":
    case "stopped":
      return EXIT.ok;
    case "refused":
      return EXIT.refused;
    case "failed":
      return EXIT.stopFailed;
  }
}

function report(io: CliIo, result: StopResult): void {
  const name = `this project's ${result.target.toUpperCase()} port ${result.port}`;
  switch (result.result) {
    case "free":
      io.out(`Nothing to stop: ${name} is free.\n`);
      return;
    case "stopped":
      io.out(
        `Stopped ${result.holders.map(describe).join(", ")}, which held ${name} (${result.signal}).\n`,
      );
      return;
    case "refused":
    case "failed":
      io.err(
        `talkide-ports: did not stop ${name}: ${result.message} [${result.reason}]\n` +
          "Ask the user what to do; do not stop it another way and do not pick another port.\n",
      );
      return;
  }
}
