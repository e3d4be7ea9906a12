#!/usr/bin/env node
// talkide-render: a render state (JSON) on stdin, CLAUDE.md on stdout (runner protocol).
// Start-up is most of a render's cost, and the conformance runner starts this bin once per
// case: Node's on-disk compile cache (the same one tsc enables for itself) roughly halves the
// CPU time of every start after the first. It only caches compiled code, never any output.
import { enableCompileCache } from "node:module";

enableCompileCache();
const { main } = await import("./main.ts");
await main();
