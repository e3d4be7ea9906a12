import { buffer } from "node:stream/consumers";
import { parseRenderArguments, runRender } from "../cli/render-command.ts";

/** Wires the command to the process: arguments, stdin, stdout, stderr and the exit code. */
export async function main(): Promise<void> {
  const options = parseRenderArguments(process.argv.slice(2));
  const outcome = "exitCode" in options ? options : runRender(await buffer(process.stdin), options);
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  process.exitCode = outcome.exitCode;
}
