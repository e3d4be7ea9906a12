#!/usr/bin/env node
// talkide-spec-render: the reference interpreter as a runner-protocol command. It renders a
// case input (stdin) with the template of the suite's spec page and writes the bytes to
// stdout, or exits 2 with {"code","path"} on stderr. Offered a session by the runner (runner
// protocol, session mode), it renders every input the runner sends. Kept to the interpreter's
// own modules and node:util's argument parser: a per-case run starts it once per case.

import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { PACKAGE_ROOT } from "../cases/package-root.ts";
import { parseSuiteDefinition } from "../cases/suite.ts";
import { templateBlock } from "../interpreter/fenced-blocks.ts";
import { interpret } from "../interpreter/interpret.ts";
import { serveSession, sessionRequested, type SessionAnswer } from "../session/serve.ts";

const USAGE = "usage: talkide-spec-render --suite <name> [--output <arg>] [--root <dir>] < input";

try {
  const { values } = parseArgs({
    options: {
      suite: { type: "string" },
      output: { type: "string", default: "" },
      root: { type: "string", default: PACKAGE_ROOT },
    },
  });
  if (values.suite === undefined) throw new Error(USAGE);
  const definition = parseSuiteDefinition(
    readFileSync(path.join(values.root, "cases", values.suite, "suite.json"), "utf8"),
  );
  if (definition.template === null)
    throw new Error(`Suite ${values.suite} names no template to interpret.`);
  const template = templateBlock(
    readFileSync(path.join(values.root, definition.template), "utf8"),
    definition.template,
  );
  const render = (input: Uint8Array): SessionAnswer => {
    const result = interpret({
      template,
      templateContext: definition.templateContext,
      input,
      output: values.output,
    });
    if (result.ok) return { exitCode: 0, stdout: result.text, stderr: "" };
    const line = `${JSON.stringify({ code: result.error.code, path: result.error.path })}\n`;
    return { exitCode: 2, stdout: "", stderr: line };
  };
  if (sessionRequested()) {
    await serveSession(render);
  } else {
    const { exitCode, stdout, stderr } = render(readFileSync(0));
    process.stdout.write(stdout);
    process.stderr.write(stderr);
    process.exitCode = exitCode;
  }
} catch (error) {
  // Exit 1, never 2: a crash must not read as an error answer of the protocol.
  process.stderr.write(`talkide-spec-render: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
