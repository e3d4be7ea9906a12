#!/usr/bin/env node
import { EXIT } from "../cli/exit-codes.ts";
import { processIo } from "../cli/io.ts";
import { runCli } from "../cli/program.ts";

try {
  process.exitCode = await runCli(process.argv.slice(2), processIo());
} catch (error) {
  process.stderr.write(
    `talkide-ports: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = EXIT.internal;
}
