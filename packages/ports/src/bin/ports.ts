#!/usr/bin/env node
import { sessionRequested } from "@talkide/context-spec/session";
import { EXIT } from "../cli/exit-codes.ts";
import { processIo } from "../cli/io.ts";
import { runCli } from "../cli/program.ts";
import { isRunnerCommand, serveRunnerSession } from "../cli/session.ts";

const argv = process.argv.slice(2);
try {
  if (sessionRequested() && isRunnerCommand(argv)) {
    await serveRunnerSession(argv, process.cwd());
  } else {
    process.exitCode = await runCli(argv, processIo());
  }
} catch (error) {
  process.stderr.write(
    `talkide-ports: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = EXIT.internal;
}
