#!/usr/bin/env node
import { runTiclawk } from "./program.ts";

process.exitCode = await runTiclawk(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
