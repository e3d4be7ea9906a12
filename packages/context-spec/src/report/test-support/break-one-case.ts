#!/usr/bin/env node
// A runtime with one bug, for the report's tests: the reference interpreter, except that for
// the one input of one suite named by argv[2], "<suite>:<sha256 of the input>", its output
// gets a no-break space (U+00A0) for the first space, a byte change no eye sees.
// argv: <suite>:<sha256> --suite <name> --output <arg>.
// Speaks the session mode, as the real runtimes do.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { PACKAGE_ROOT } from "../../cases/package-root.ts";
import { parseSuiteDefinition } from "../../cases/suite.ts";
import { templateBlock } from "../../interpreter/fenced-blocks.ts";
import { interpret } from "../../interpreter/interpret.ts";
import { serveSession, type SessionAnswer } from "../../session/serve.ts";

const [broken = "", , suite = "", , output = ""] = process.argv.slice(2);
const definition = parseSuiteDefinition(
  readFileSync(path.join(PACKAGE_ROOT, "cases", suite, "suite.json"), "utf8"),
);
const template = templateBlock(
  readFileSync(path.join(PACKAGE_ROOT, definition.template ?? ""), "utf8"),
  definition.template ?? "",
);

await serveSession((input: Uint8Array): SessionAnswer => {
  const result = interpret({
    template,
    templateContext: definition.templateContext,
    input,
    output,
  });
  if (!result.ok) return { exitCode: 2, stdout: "", stderr: `${JSON.stringify(result.error)}\n` };
  const hit = `${suite}:${createHash("sha256").update(input).digest("hex")}` === broken;
  return {
    exitCode: 0,
    stdout: hit ? result.text.replace(" ", "\u00a0") : result.text,
    stderr: "",
  };
});
