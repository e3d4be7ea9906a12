import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "./temp-dir.ts";
import { waitFor } from "./wait-for.ts";

const MODULE = fileURLToPath(new URL("./stop-with-owner.ts", import.meta.url));

/** Whether a process still runs (a zombie waiting for its parent to reap it does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

const leftovers: number[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone, as it should be.
    }
  }
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

interface Owner {
  readonly ownerPid: number;
  readonly servicePid: number;
  readonly watchdogPid: number;
  /** Where the service writes "term" when SIGTERM reaches it. */
  readonly marker: string;
  /** Ends the service normally (the owner stays). */
  endService(): void;
}

/**
 * A process standing in for a vitest worker: it starts a long-running "service" (which notes a
 * SIGTERM in a file, and ignores it when told to), hands it to `stopWithOwner` with a 2 s grace,
 * prints the pids and then idles until killed.
 */
async function startOwner(service: { readonly ignoresTerm: boolean }): Promise<Owner> {
  const dir = await makeTempDir("talkide-stop-with-owner-");
  dirs.push(dir);
  const marker = join(dir, "service-got");
  const serviceCode = [
    `process.on("SIGTERM", () => {`,
    `  require("node:fs").writeFileSync(${JSON.stringify(marker)}, "term");`,
    service.ignoresTerm ? "" : "  process.exit(0);",
    `});`,
    `process.stdin.on("data", () => process.exit(0));`,
    `setInterval(() => undefined, 1000);`,
  ].join("\n");
  const ownerCode = [
    `import { spawn } from "node:child_process";`,
    `import { stopWithOwner } from ${JSON.stringify(MODULE)};`,
    `const service = spawn(process.execPath, ["-e", ${JSON.stringify(serviceCode)}], { stdio: ["pipe", "ignore", "ignore"] });`,
    `const watchdog = stopWithOwner(service, 2);`,
    `process.stdin.on("data", () => service.stdin.write("end\\n"));`,
    `console.log(JSON.stringify({ service: service.pid, watchdog }));`,
    `setInterval(() => undefined, 1000);`,
  ].join("\n");
  const owner = spawn(
    process.execPath,
    ["--conditions=@talkide/source", "--input-type=module", "-e", ownerCode],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  if (owner.pid === undefined) throw new Error("the owner did not start");
  leftovers.push(owner.pid);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: owner.stdout }).once("line", resolve);
    owner.once("exit", (code) => {
      reject(new Error(`the owner exited (${String(code)}) before it printed its pids`));
    });
  });
  const pids = JSON.parse(line) as { service: number; watchdog: number };
  leftovers.push(pids.service, pids.watchdog);
  return {
    ownerPid: owner.pid,
    servicePid: pids.service,
    watchdogPid: pids.watchdog,
    marker,
    endService: () => owner.stdin.write("end\n"),
  };
}

const gone = (pid: number, what: string) =>
  waitFor(() => Promise.resolve(running(pid) ? null : true), what, 30_000);

describe("stopWithOwner", () => {
  it("stops the service with SIGTERM once its owner dies by SIGKILL, then ends itself", async () => {
    const owner = await startOwner({ ignoresTerm: false });
    expect(running(owner.servicePid)).toBe(true);
    expect(running(owner.watchdogPid)).toBe(true);
    process.kill(owner.ownerPid, "SIGKILL");
    await gone(owner.servicePid, "the service to stop");
    await gone(owner.watchdogPid, "the watchdog to end");
    expect(readFileSync(owner.marker, "utf8")).toBe("term");
  });

  it("kills a service that ignores SIGTERM once the grace is over", async () => {
    const owner = await startOwner({ ignoresTerm: true });
    process.kill(owner.ownerPid, "SIGKILL");
    await waitFor(
      () => Promise.resolve(existsSync(owner.marker) ? true : null),
      "the SIGTERM to reach the service",
      30_000,
    );
    expect(running(owner.servicePid)).toBe(true);
    await gone(owner.servicePid, "the SIGKILL after the grace");
    await gone(owner.watchdogPid, "the watchdog to end");
  });

  it("ends by itself when the service ends while its owner lives, signalling nothing", async () => {
    const owner = await startOwner({ ignoresTerm: false });
    owner.endService();
    await gone(owner.servicePid, "the service to end");
    await gone(owner.watchdogPid, "the watchdog to end");
    expect(running(owner.ownerPid)).toBe(true);
    expect(existsSync(owner.marker)).toBe(false);
  });
});
