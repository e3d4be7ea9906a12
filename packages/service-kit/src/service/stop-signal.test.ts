import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { NODE_FROM_SOURCE } from "../test-support/node-from-source.ts";

const STOP_SIGNAL = fileURLToPath(new URL("./stop-signal.ts", import.meta.url));

/** A process that waits for its stop signal, says which one came, and exits by itself. */
const PROGRAM = `
const { stopSignal } = await import(${JSON.stringify(STOP_SIGNAL)});
const signal = stopSignal();
process.stdout.write("waiting\\n");
const keepAlive = setInterval(() => undefined, 1000);
console.log("stopping after", await signal);
clearInterval(keepAlive);
`;

describe("stopSignal", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "resolves with %s, and the process ends its own way",
    async (signal) => {
      const child = spawn(
        process.execPath,
        [...NODE_FROM_SOURCE, "--input-type=module", "-e", PROGRAM],
        {
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        if (out === "waiting\n") child.kill(signal);
      });
      const [code] = (await once(child, "exit")) as [number | null];
      expect({ code, out }).toEqual({ code: 0, out: `waiting\nstopping after ${signal}\n` });
    },
  );
});
