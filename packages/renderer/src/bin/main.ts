import { buffer } from "node:stream/consumers";
import { serveSession, sessionRequested } from "@talkide/context-spec/session";
import { parseRenderArguments, runRender } from "../cli/render-command.ts";

/**
 * Wires the command to the process: arguments, stdin, stdout, stderr and the exit code. When
 * the conformance runner offers a session (runner protocol, session mode), the process renders
 * every state the runner sends with the same options, instead of one state per process.
 */
export async function main(): Promise<void> {
  const options = parseRenderArguments(process.argv.slice(2));
  if (!("exitCode" in options) && sessionRequested()) {
    await serveSession((input) => runRender(input, options));
    return;
  }
  const outcome = "exitCode" in options ? options : runRender(await buffer(process.stdin), options);
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  process.exitCode = outcome.exitCode;
}
