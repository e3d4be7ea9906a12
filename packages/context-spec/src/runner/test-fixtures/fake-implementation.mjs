#!/usr/bin/env node
// A stand-in implementation for the runner's tests, speaking the runner protocol over the
// tiny "shout" contract of the test suites: the output is the input in upper case, or for
// the two-file suite one line of it; an input containing "bad" is an error.
// argv: <mode> [part]. Modes: correct, wrong-bytes, wrong-error, crash, signal, hang,
// protocol-stdout, protocol-garbage, env-check.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const [mode = "correct", part = ""] = process.argv.slice(2);
const input = readFileSync(0, "utf8");

function answer() {
  if (input.includes("bad")) {
    const path = mode === "wrong-error" ? "line[1]" : "line[0]";
    process.stderr.write(
      `${JSON.stringify({ code: "bad_input", path, message: "no bad words" })}\n`,
    );
    process.exitCode = 2;
    return;
  }
  const lines = input.toUpperCase().split("\n");
  let out = part === "" ? input.toUpperCase() : `${part === "first" ? lines[0] : lines[1]}\n`;
  if (mode === "wrong-bytes") out = out.replace("\n", " \n");
  process.stdout.write(out);
}

switch (mode) {
  case "crash":
    throw new Error("the fake implementation crashed on purpose");
  case "signal":
    process.kill(process.pid, "SIGKILL");
    break;
  case "hang": {
    // A grandchild that would outlive a runner that kills only its direct child.
    const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
      stdio: "ignore",
    });
    writeFileSync(process.env.FAKE_PID_FILE ?? "/dev/null", String(grandchild.pid));
    setInterval(() => {}, 1000);
    break;
  }
  case "protocol-stdout":
    process.stdout.write("half an answer");
    process.stderr.write('{"code":"bad_input","path":"line[0]"}\n');
    process.exitCode = 2;
    break;
  case "protocol-garbage":
    process.stderr.write("Exception in thread main\n");
    process.exitCode = 2;
    break;
  default:
    answer();
}
