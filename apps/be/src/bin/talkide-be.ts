#!/usr/bin/env node
import { stopSignal } from "@talkide/service-kit";
import { runCli } from "../cli.ts";

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  stopSignal: stopSignal(),
});
process.exitCode = code;
// A finished command has nothing left to wait for (the signal listeners keep nothing alive,
// but pools and timers of libraries might); serve only returns after a clean shutdown.
process.exit(code);
