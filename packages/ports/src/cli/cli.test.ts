import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { derivePorts, type ProjectPorts } from "../derive.ts";
import { probePort } from "../probe.ts";
import { renderProjectYml } from "../project-yml-render.ts";
import {
  ephemeralPort,
  freeProjectId,
  isRunning,
  runBin,
  startListener,
  type Listener,
} from "../test-support/processes.ts";

// Every test here drives the real bin in a child process and, where a port matters, a real
// listener in another child process, on loopback only. The platform's ports 9090 and 5200
// are never listened on: the refusals are proven without touching them.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

interface TestProject {
  readonly dir: string;
  readonly id: number;
  readonly ports: ProjectPorts;
}

/** A temporary project directory whose .talkide/project.yml holds `text` (default: canonical). */
async function project(text?: (id: number) => string): Promise<TestProject> {
  const id = await freeProjectId();
  const dir = await mkdtemp(join(tmpdir(), "talkide-ports-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, ".talkide"));
  await writeFile(join(dir, ".talkide", "project.yml"), (text ?? renderProjectYml)(id));
  return { dir, id, ports: derivePorts(id) };
}

async function listen(
  port: number,
  host = "127.0.0.1",
  mode: "normal" | "ignore-sigterm" = "normal",
): Promise<Listener> {
  const listener = await startListener(port, host, mode);
  cleanups.push(listener.stop);
  return listener;
}

describe("talkide-ports show", () => {
  test("prints the ports and URLs from the file, for people and as JSON", async () => {
    const { dir, id, ports } = await project();
    const human = await runBin(["show"], { cwd: dir });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`Project ${id}`);
    expect(human.stdout).toContain(`BE  port ${ports.be}  http://localhost:${ports.be}`);
    expect(human.stdout).toContain(`FE  port ${ports.fe}  http://localhost:${ports.fe}`);

    const json = await runBin(["show", "--json", "--project-dir", dir]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      version: 1,
      project: { id },
      ports: { be: ports.be, fe: ports.fe },
      urls: { be: `http://localhost:${ports.be}`, fe: `http://localhost:${ports.fe}` },
      platform: { reserved_ports: [9090, 5200] },
    });
  });

  test("a missing file is a bad file (exit 2) with a hint", async () => {
    const dir = await mkdtemp(join(tmpdir(), "talkide-ports-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const run = await runBin(["show"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("file_not_found");
    expect(run.stderr).toContain("--project-dir");
  });
});

describe("talkide-ports check", () => {
  test("exit 0 when both ports are free", async () => {
    const { dir, ports } = await project();
    const run = await runBin(["check", "--project-dir", dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`BE port ${ports.be}: free\nFE port ${ports.fe}: free\n`);
    const json = await runBin(["check", "--json", "--project-dir", dir]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ allFree: true, instruction: null });
  });

  test("exit 3 when a port is busy, naming the holder and telling the agent to ask the user", async () => {
    const { dir, ports } = await project();
    const holder = await listen(ports.be);
    const run = await runBin(["check"], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain(`BE port ${ports.be}: busy, held by pid ${holder.pid} (node)`);
    expect(run.stdout).not.toContain("listen.ts");
    expect(run.stdout).toContain(`FE port ${ports.fe}: free`);
    expect(run.stdout).toMatch(/Ask the user what to do; never pick another port on your own\./);
    expect(run.stdout).toContain("`talkide-ports stop be`");
    expect(isRunning(holder)).toBe(true);
  });

  test("--json reports the holder, and an IPv6-only listener counts as busy too", async () => {
    const { dir, id, ports } = await project();
    const holder = await listen(ports.fe, "::1");
    const run = await runBin(["check", "--json", "--project-dir", dir]);
    expect(run.code).toBe(3);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      projectId: id,
      allFree: false,
      ports: {
        be: { port: ports.be, state: "free" },
        fe: { port: ports.fe, state: "busy", holder: { pid: holder.pid } },
      },
    });
    expect(report["instruction"]).toMatch(/Ask the user/);
    expect(report["instruction"]).toContain(`talkide-ports stop fe --project-dir ${dir}`);
  });

  test("exit 2 for a tampered file, with a one-line JSON error under --json", async () => {
    const { dir } = await project((id) => renderProjectYml(id).replace("version: 1", "version: 2"));
    const run = await runBin(["check", "--json", "--project-dir", dir]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(JSON.parse(run.stderr)).toMatchObject({ code: "unsupported_version", path: "version" });
  });
});

describe("talkide-ports stop", () => {
  test("stops the process holding this project's BE port with SIGTERM", async () => {
    const { dir, ports } = await project();
    const holder = await listen(ports.be);
    const run = await runBin(["stop", "be", "--project-dir", dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Stopped pid ${holder.pid} (`);
    expect(run.stdout).toContain("(SIGTERM)");
    expect(await holder.ended).toBe("SIGTERM");
    expect(await probePort(ports.be)).toEqual({ port: ports.be, state: "free" });
  });

  test("a holder that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const { dir, ports } = await project();
    const holder = await listen(ports.fe, "127.0.0.1", "ignore-sigterm");
    const run = await runBin(["stop", "fe", "--json", "--grace-ms", "300", "--project-dir", dir]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      target: "fe",
      port: ports.fe,
      result: "stopped",
      signal: "SIGKILL",
      holders: [{ pid: holder.pid }],
    });
    expect(await holder.ended).toBe("SIGKILL");
  });

  test("a free port is nothing to stop (exit 0), and the other port's holder is untouched", async () => {
    const { dir, ports } = await project();
    const other = await listen(ports.fe);
    const run = await runBin(["stop", "be", "--json", "--project-dir", dir]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ target: "be", port: ports.be, result: "free" });
    expect(isRunning(other)).toBe(true);
  });

  test("no argument can name a port: platform ports, numbers and --port are usage errors", async () => {
    const { dir, ports } = await project();
    const holder = await listen(ports.be);
    for (const args of [
      ["stop", "9090"],
      ["stop", "5200"],
      ["stop", String(ports.be)],
      ["stop", "be", "9090"],
      ["stop", "be", "--port", "9090"],
      ["stop", "--port", String(ports.be)],
      ["stop"],
      ["check", "9090"],
      ["show", "5200"],
    ]) {
      const run = await runBin([...args, "--project-dir", dir]);
      expect({ args, code: run.code }).toEqual({ args, code: 64 });
      expect(run.stdout).toBe("");
    }
    expect(isRunning(holder)).toBe(true);
  });

  test("a file that names a platform port is a bad file: nothing is stopped", async () => {
    const { dir } = await project((id) =>
      renderProjectYml(id).replace(/ be: \d+\n/, " be: 9090\n"),
    );
    const run = await runBin(["stop", "be", "--project-dir", dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("platform_port at ports.be");
    expect(run.stdout).toBe("");
  });

  test("a port the file does not rightfully name is never stopped, even when it is busy", async () => {
    const bystanderPort = await ephemeralPort();
    const bystander = await listen(bystanderPort);
    // The FE port rewritten to the bystander's port: not derived from the id.
    const mismatched = await project((id) =>
      renderProjectYml(id).replaceAll(String(derivePorts(id).fe), String(bystanderPort)),
    );
    // An extra key naming the bystander's port.
    const extra = await project((id) =>
      renderProjectYml(id).replace(/( {2}fe: \d+\n)/, `$1  db: ${bystanderPort}\n`),
    );
    for (const { dir } of [mismatched, extra]) {
      for (const target of ["be", "fe"]) {
        const run = await runBin(["stop", target, "--json", "--project-dir", dir]);
        expect(run.code).toBe(2);
        expect(run.stdout).toBe("");
      }
    }
    const mismatchRun = await runBin(["stop", "fe", "--json", "--project-dir", mismatched.dir]);
    expect(JSON.parse(mismatchRun.stderr)).toMatchObject({
      code: "port_mismatch",
      path: "ports.fe",
    });
    const extraRun = await runBin(["stop", "fe", "--json", "--project-dir", extra.dir]);
    expect(JSON.parse(extraRun.stderr)).toMatchObject({ code: "unknown_field", path: "ports.db" });
    expect(isRunning(bystander)).toBe(true);
  });

  test("a hand-edited file with the right values is still refused (exit 2)", async () => {
    const { dir, ports } = await project((id) => `${renderProjectYml(id)}# note\n`);
    const holder = await listen(ports.be);
    const run = await runBin(["stop", "be", "--project-dir", dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("not_canonical");
    expect(isRunning(holder)).toBe(true);
  });
});

describe("talkide-ports usage", () => {
  test("--help lists the exit codes and exits 0; no command is a usage error", async () => {
    const help = await runBin(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit codes:");
    expect(help.stdout).toContain("no command takes a port number");
    expect((await runBin([])).code).toBe(64);
    expect((await runBin(["kill-port"])).code).toBe(64);
  });
});
