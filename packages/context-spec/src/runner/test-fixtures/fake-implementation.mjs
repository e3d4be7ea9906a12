#!/usr/bin/env node
// A stand-in implementation for the runner's tests, speaking the runner protocol over the
// tiny "shout" contract of the test suites: the output is the input in upper case, or for
// the two-file suite one line of it; an input containing "bad" is an error.
// argv: <mode> [part]. Modes: correct, wrong-bytes, wrong-error, crash, die, signal, hang,
// protocol-stdout, protocol-garbage, per-case-only (never accepts a session).
// In the modes that answer, an input holding "#crash", "#die", "#signal", "#hang",
// "#garbage" or "#noise" misbehaves that way for that case only.
// It speaks the session mode (spec/runner-protocol.md) when offered, except per-case-only.
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { serveSession, sessionRequested } from "../../session/serve.ts";

const [mode = "correct", part = ""] = process.argv.slice(2);
// Lets a test count the processes the runner started.
if (process.env.FAKE_PID_LOG !== undefined)
  appendFileSync(process.env.FAKE_PID_LOG, `${process.pid}\n`);
const MISBEHAVIOURS = {
  crash: "crash",
  die: "die",
  signal: "signal",
  hang: "hang",
  "protocol-garbage": "garbage",
  "protocol-stdout": "noise",
};

/** The per-case answer { exitCode, stdout, stderr }; some misbehaviours never return. */
function answer(input) {
  const misbehaviour =
    MISBEHAVIOURS[mode] ?? /#(crash|die|signal|hang|garbage|noise)/u.exec(input)?.[1];
  switch (misbehaviour) {
    case "crash":
      throw new Error("the fake implementation crashed on purpose");
    case "die":
      process.exit(3);
      break;
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
      return new Promise(() => {});
    }
    case "noise":
      return {
        exitCode: 2,
        stdout: "half an answer",
        stderr: '{"code":"bad_input","path":"line[0]"}\n',
      };
    case "garbage":
      return { exitCode: 2, stdout: "", stderr: "Exception in thread main\n" };
    default:
  }
  if (input.includes("bad")) {
    const path = mode === "wrong-error" ? "line[1]" : "line[0]";
    const line = JSON.stringify({ code: "bad_input", path, message: "no bad words" });
    return { exitCode: 2, stdout: "", stderr: `${line}\n` };
  }
  const lines = input.toUpperCase().split("\n");
  let out = part === "" ? input.toUpperCase() : `${part === "first" ? lines[0] : lines[1]}\n`;
  if (mode === "wrong-bytes") out = out.replace("\n", " \n");
  return { exitCode: 0, stdout: out, stderr: "" };
}

if (sessionRequested() && mode !== "per-case-only") {
  await serveSession((input) => answer(new TextDecoder().decode(input)));
} else {
  const { exitCode, stdout, stderr } = await answer(readFileSync(0, "utf8"));
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = exitCode;
}
